"""The co-author network's layout: every label fits the picture (issue 21: the live site drew
Damien Chablat's co-author "Stéphane Caro" as "éphane Caro", cut at the left edge)."""

from __future__ import annotations

from researchers.selectors import LABEL_UNIT, network_label, network_layout

# Damien Chablat's co-authors on the sample (tests/researchers/test_pages.py): id, name, slug, shared.
CHABLAT = [
    [1, "Philippe Wenger", "philippe-wenger", 5],
    [2, "Jorge Angeles", "jorge-angeles", 3],
    [3, "Emilie Bouyer", "emilie-bouyer", 2],
    [4, "Stéphane Caro", "stephane-caro", 2],
]


def _extent(node):
    width = len(node.label) * LABEL_UNIT
    return {
        "start": (node.label_x, node.label_x + width),
        "end": (node.label_x - width, node.label_x),
        "middle": (node.label_x - width / 2, node.label_x + width / 2),
    }[node.label_anchor]


def test_the_box_widens_so_the_left_label_starts_inside_it():
    net = network_layout(CHABLAT, [])
    caro = net.nodes[3]
    # Fourth of four on the ring: due left of the centre, its label ending at the node.
    assert (caro.label, caro.label_anchor) == ("Stéphane Caro", "end")
    # By hand: ring 98 round (160, 160), Caro at x 62, r 6.4, label end 62 - 9.4 = 52.6, label
    # 13 x 5.4 = 70.2 wide, so 17.6 past the edge; Angeles' on the right 21.8 past (with the
    # 3-unit gap): 22 more on each side.
    assert (net.width, net.height, net.cx, net.cy) == (364, 320, 182.0, 160.0)
    assert (caro.x, caro.label_x) == (84.0, 74.6)
    for node in net.nodes:
        low, high = _extent(node)
        assert low >= 0 and high <= net.width, node.name


def test_long_names_are_cut_and_still_fit():
    names = ["Jean-Christophe Lefebvre-Dubois", "A. B.", "Maria del Carmen Fernández-López", "Li"]
    net = network_layout([[i, n, "x", 1] for i, n in enumerate(names)], [])
    assert [n.label for n in net.nodes] == ["Jean-Christophe Lefeb…", "A. B.", "Maria del Carmen Fern…", "Li"]
    assert network_label("Jean-Christophe Lefebvre-Dubois") == "Jean-Christophe Lefeb…"
    for node in net.nodes:
        low, high = _extent(node)
        assert low >= 0 and high <= net.width, node.name


def test_short_names_keep_the_square_box():
    net = network_layout([[1, "Li", "li", 1], [2, "Wu", "wu", 1]], [])
    assert (net.width, net.cx) == (320, 160.0)
