"""Name normalisation and ORCID iDs: the hard cases of the issue, checked by hand."""

import pytest

from researchers.names import family_key, given_compatible, name_similarity, names_compatible, parse_name
from researchers.orcid import InvalidOrcid, normalize_orcid, orcid_check_digit


def test_mueller_spellings_share_one_key():
    # Müller (Unicode), Muller (folded), M{\"u}ller (TeX, as arXiv writes it), Mueller (German).
    keys = {parse_name(n).key for n in ["Hans Müller", "Hans Muller", 'Hans M{\\"u}ller', "Hans Mueller"]}
    assert keys == {"muller"}
    assert parse_name('Hans M{\\"u}ller').raw == "Hans Müller"


def test_initials_match_full_names_but_different_names_do_not():
    j_smith, john, james = parse_name("J. Smith"), parse_name("John Smith"), parse_name("James Smith")
    assert names_compatible(j_smith, john) and names_compatible(j_smith, james)
    assert not names_compatible(john, james)
    assert j_smith.block == john.block == "j smith"


def test_hyphens_particles_last_first_and_cjk_order():
    assert parse_name("Jean-Pierre Dupont").given == ("jean", "pierre")
    assert given_compatible(parse_name("J.-P. Dupont").given, parse_name("Jean-Pierre Dupont").given)
    assert family_key("van der Berg") == family_key("Berg") == "berg"
    assert parse_name("Berg, Jan van der").key == "berg"
    assert parse_name("Smith, John").given == ("john",)
    cjk = parse_name("王伟")
    assert (cjk.family, cjk.given) == ("wang", ("wei",))
    # A list writing the family name first still aligns with Western order.
    assert names_compatible(parse_name("Wang Wei"), parse_name("Wei Wang"))
    assert name_similarity(parse_name("Xinyi Wan"), parse_name("Xin-Yi Wan")) >= 0.9


def test_glued_initials_in_keyname():
    # arXiv record "J.P.Hague" arrives as a keyname with no forenames.
    name = parse_name("J.P.Hague", "J.P.Hague", "")
    assert (name.given, name.key) == (("j", "p"), "hague")


def test_orcid_check_digit_and_forms():
    # The seed researcher's iD; and Peter Butcher's iD from the OpenAlex work, check digit X.
    assert normalize_orcid("https://orcid.org/0000-0002-5250-9277") == "0000-0002-5250-9277"
    assert normalize_orcid("000000025250-9277") == "0000-0002-5250-9277"
    assert normalize_orcid("https://orcid.org/0000-0002-3361-627x") == "0000-0002-3361-627X"
    assert orcid_check_digit("000000021825009") == "7"  # ORCID's documented example 0000-0002-1825-0097
    for bad in ["0000-0002-5250-9278", "0000-0002-5250", "orcid", ""]:
        with pytest.raises(InvalidOrcid):
            normalize_orcid(bad)
