"""A curation record told as sentences with links, for editors (the record page, the undo page)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.text import Truncator, capfirst

from researchers.models import Authorship, Researcher

from .models import CurationRecord
from .names import NAME_KINDS

# Papers named in a sentence about moved authorships; the rest are counted.
STORY_PAPERS_SHOWN = 10
TITLE_CHARS = 120


def _count(n: int, noun: str, plural: str = "") -> str:
    """``1 paper``, ``2 papers`` (``plural`` for irregular nouns)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def _and(items: Sequence[SafeString | str]) -> SafeString:
    """``a``, ``a and b``, ``a, b and c`` (items escaped unless safe)."""
    items = list(items)
    if len(items) < 2:
        return format_html_join("", "{}", ((item,) for item in items))
    return format_html("{} and {}", format_html_join(", ", "{}", ((item,) for item in items[:-1])), items[-1])


def _because(reason: str) -> SafeString:
    """`` because “reason”.``, without a second full stop when the reason has its own."""
    reason = (reason or "").strip()
    return format_html(" because “{}”{}", reason, "" if reason[-1:] in ".!?…" else ".")


def researcher_phrase(pk: int, state: dict[str, Any] | None, *, link: bool = True) -> SafeString:
    """``7239 (A. Name, 3 papers)``: the id linked to the researcher's admin page, the name
    to its public page (``/researchers/<id>``, which follows a merge); ``state`` is a
    snapshot of :func:`curation.records.researcher_state` (``None``: the id alone);
    ``link=False`` for a record that no longer exists."""
    number = format_html('<a href="{}">{}</a>', reverse("admin:researchers_researcher_change", args=[pk]), pk)
    if not link:
        number = format_html("{}", pk)
    if not state:
        return number
    name = state.get("display_name") or "unnamed"
    if link:
        name = format_html('<a href="{}">{}</a>', reverse("researchers:lookup", args=[pk]), name)
    papers = state.get("paper_count")
    if papers is None:
        return format_html("{} ({})", number, name)
    return format_html("{} ({}, {})", number, name, _count(papers, "paper"))


def _researchers(pks: Sequence[int], states: dict[str, dict], *, capital: bool = False) -> SafeString:
    """``researcher 7239 (…)`` or ``researchers 7239 (…) and 7240 (…)`` (``Researcher…``
    with ``capital``)."""
    noun = "researcher" if len(pks) == 1 else "researchers"
    noun = noun.capitalize() if capital else noun
    return format_html("{} {}", noun, _and([researcher_phrase(pk, states.get(str(pk))) for pk in pks]))


def _moved_papers(moved: list[dict]) -> SafeString:
    """The papers of moved authorships, named (at most :data:`STORY_PAPERS_SHOWN`, linked,
    with their year) and the rest counted; one query."""
    ids = [m["id"] for m in moved[:STORY_PAPERS_SHOWN]]
    by_id = {a.pk: a.paper for a in Authorship.objects.filter(pk__in=ids).select_related("paper")}
    named = [
        format_html(
            '<a href="{}">{}</a> {}{}',
            paper.get_absolute_url(),
            paper.arxiv_id,
            Truncator(paper.title).chars(TITLE_CHARS),
            f" ({paper.submitted_at.year})" if paper.submitted_at else "",
        )
        for paper in (by_id[pk] for pk in ids if pk in by_id)
    ]
    rest = len(moved) - len(named)
    if rest:
        named.append(format_html("{} more", rest) if named else format_html("{}", _count(rest, "paper")))
    return format_html_join("; ", "{}", ((n,) for n in named))


def _constraints(constraints: dict[str, list] | None, purpose: str) -> SafeString | None:
    """``Wrote 4 matcher constraints and removed 1 so that …`` (``None`` when nothing changed)."""
    constraints = constraints or {}
    written = len(constraints.get("created", [])) + len(constraints.get("changed", []))
    removed = len(constraints.get("deleted", []))
    if not written and not removed:
        return None
    parts = []
    if written:
        parts.append(f"wrote {_count(written, 'matcher constraint')}")
    if removed:
        parts.append(f"removed {removed}" if written else f"removed {_count(removed, 'matcher constraint')}")
    sentence = " and ".join(parts)
    return format_html("{}{} so that {}.", sentence[0].upper(), sentence[1:], purpose)


def _followed(changes: dict[str, Any]) -> list[SafeString]:
    """The sentence of a merge that followed its survivor (``changes["followed"]``,
    :func:`curation.merge.merge_check`), or none."""
    hop = changes.get("followed")
    if not hop:
        return []
    return [
        format_html(
            "The editor chose researcher {} to keep, which another editor had merged into {} "
            "meanwhile: the merge followed it there (one step).",
            hop["requested_target"],
            hop["followed_to"],
        )
    ]


def _merge_names(changes: dict[str, Any], survivor: int) -> list[SafeString]:
    """The names a merge gave its survivor: slot names, and names the researchers declared."""
    lines = []
    variants = changes.get("variants_added") or []
    if variants:
        lines.append(
            format_html(
                "Researcher {} gained the name {} {}.",
                survivor,
                "variant" if len(variants) == 1 else "variants",
                _and([f"“{v}”" for v in variants]),
            )
        )
    declared = changes.get("declared_added") or []
    if declared:
        lines.append(
            format_html(
                "Researcher {} kept the {} the merged records' researchers gave: {}.",
                survivor,
                "name" if len(declared) == 1 else "names",
                _and([f"“{name}”" for name in declared]),
            )
        )
    return lines


def _merge_story(record: CurationRecord) -> list[SafeString]:
    changes = record.changes or {}
    states = changes.get("before") or {}
    survivor, merged = changes.get("survivor"), changes.get("merged") or []
    lines = [
        format_html(
            "Merged {} into {}{}",
            _researchers(merged, states),
            _researchers([survivor], states),
            _because(record.reason),
        )
    ]
    lines += _followed(changes)
    moved = changes.get("authorships") or []
    if moved:
        lines.append(
            format_html(
                "Moved {} to researcher {}: {}.", _count(len(moved), "paper"), survivor, _moved_papers(moved)
            )
        )
    identities = changes.get("identities") or []
    if identities:
        lines.append(format_html("Moved {} as well.", _count(len(identities), "external id")))
    follows = (changes.get("follows") or {}).get("before") or []
    followed = sum(1 for row in follows if row.get("researcher_id") in merged)
    if followed:
        lines.append(format_html("Moved {} to researcher {}.", _count(followed, "reader's follow"), survivor))
    if record.override_orcid:
        lines.append(
            format_html("{}", "The records held different ORCID iDs; the editor merged them anyway.")
        )
    orcid = changes.get("orcid")
    if orcid:
        lines.append(
            format_html(
                "Researcher {} took the ORCID iD {} from {}.", orcid["to"], orcid["orcid"], orcid["from"]
            )
        )
    kept = changes.get("orcid_identities") or []
    if kept:
        lines.append(
            format_html(
                "Kept {} of the others as identities of researcher {}.",
                _count(len(kept), "ORCID iD"),
                survivor,
            )
        )
    flattened = changes.get("flattened") or []
    if flattened:
        lines.append(
            format_html(
                "Re-pointed {} merged earlier into {} at {}.",
                _count(len(flattened), "record"),
                _and([str(f["from"]) for f in flattened]),
                survivor,
            )
        )
    lines += _merge_names(changes, survivor)
    lines.append(
        format_html(
            "The merged {} to researcher {}.",
            "record's page now redirects" if len(merged) == 1 else "records' pages now redirect",
            survivor,
        )
    )
    return lines


def _proposed(changes: dict[str, Any]) -> list[SafeString]:
    """The sentence of a merge that confirmed a researcher's merge proposal, or none."""
    if not changes.get("proposal"):
        return []
    return [
        format_html(
            "It confirms merge proposal #{} of the researcher who claimed researcher {}.",
            changes["proposal"],
            changes.get("survivor"),
        )
    ]


def _proposal_story(record: CurationRecord) -> list[SafeString]:
    """A researcher's merge proposal or an editor's refusal of one."""
    changes = record.changes or {}
    own, other = changes.get("researcher"), changes.get("other")
    if record.kind == CurationRecord.Kind.PROPOSAL_REFUSE:
        return [
            format_html(
                "Refused merge proposal #{}: researcher {} stays apart from researcher {}{}",
                changes.get("proposal"),
                researcher_phrase(other, None),
                researcher_phrase(own, None),
                _because(record.reason),
            )
        ]
    evidence = (changes.get("evidence") or "").strip()
    return [
        format_html(
            "{}, who claimed researcher {}, proposed merging researcher {} into it.",
            record.editor_name,
            researcher_phrase(own, None),
            researcher_phrase(other, None),
        ),
        format_html("Their evidence for the editors: “{}”.", evidence)
        if evidence
        else format_html("{}", "They gave no evidence."),
    ]


def _split_story(record: CurationRecord) -> list[SafeString]:
    changes = record.changes or {}
    source, target = changes.get("source"), changes.get("target")
    states = {**(changes.get("after") or {}), **(changes.get("before") or {})}
    moved = changes.get("authorships") or []
    created = changes.get("created_researcher")
    lines = [
        format_html(
            "Moved {} from researcher {} to {}researcher {}{}",
            _count(len(moved), "paper"),
            researcher_phrase(source, states.get(str(source))),
            "new " if created else "",
            researcher_phrase(target, (changes.get("after") or {}).get(str(target))),
            _because(record.reason),
        ),
        format_html("The papers: {}.", _moved_papers(moved)),
    ]
    identities = changes.get("identities") or []
    if identities:
        lines.append(format_html("Moved {} with them.", _count(len(identities), "external id")))
    told = changes.get("followers_notified")
    if told:
        lines.append(format_html("Told {} of researcher {}.", _count(told, "follower"), source))
    return lines


def _undo_story(record: CurationRecord) -> list[SafeString]:
    changes = record.changes or {}
    original = record.undoes
    restored = changes.get("restored") or {}
    what = f"a {original.get_kind_display().lower()}" if original else "a record"
    lines = [
        format_html(
            'Undid <a href="{}">curation #{}</a> ({}){}',
            reverse("admin:curation_curationrecord_change", args=[changes.get("undoes")]),
            changes.get("undoes"),
            what,
            _because(record.reason),
        ),
    ]
    if restored:
        lines.append(
            format_html(
                "Restored {} as {} before it.",
                _researchers(sorted(int(pk) for pk in restored), restored),
                "it was" if len(restored) == 1 else "they were",
            )
        )
    proposal = changes.get("proposal_restored")
    if proposal:
        lines.append(
            format_html("Merge proposal #{} waits for an editor again.", proposal["proposal"])
            if proposal["to"] == "pending"
            else format_html("Merge proposal #{} is withdrawn.", proposal["proposal"])
        )
    deleted = changes.get("deleted_researcher")
    if deleted:
        lines.append(format_html("Deleted researcher {}, which the split had created.", deleted))
    return lines


def _distinct_story(record: CurationRecord) -> list[SafeString]:
    pair = (record.changes or {}).get("pair") or record.researcher_ids
    states = {
        str(r.pk): {"display_name": r.display_name, "paper_count": r.paper_count}
        for r in Researcher.objects.filter(pk__in=pair)
    }
    return [
        format_html(
            "Declared {} not the same person{}",
            _researchers(sorted(pair), states),
            _because(record.reason),
        ),
        format_html("{}", "The same-name queue no longer offers the pair."),
    ]


def _other_story(record: CurationRecord) -> list[SafeString]:
    """A kind without its own story: what it was, on whom, why, and the papers it moved; a
    decision on one author slot (``changes`` with ``arxiv_id`` and ``researcher``, as the
    review queue's confirmation writes) names the paper."""
    changes = record.changes or {}
    moved = changes.get("authorships") or []
    arxiv_id, researcher = changes.get("arxiv_id"), changes.get("researcher")
    if arxiv_id and researcher:
        first = format_html(
            '{}: researcher {} is an author of <a href="{}">arXiv {}</a>{}',
            capfirst(record.get_kind_display()),
            researcher_phrase(researcher, (changes.get("before") or {}).get(str(researcher))),
            reverse("papers:lookup", kwargs={"raw": arxiv_id}),
            arxiv_id,
            _because(record.reason),
        )
    else:
        first = format_html(
            "{} on {}{}",
            capfirst(record.get_kind_display()),
            _researchers(record.researcher_ids or [record.researcher_id], {}),
            _because(record.reason),
        )
    lines = [first]
    if moved:
        lines.append(format_html("Moved {}: {}.", _count(len(moved), "paper"), _moved_papers(moved)))
    return lines


def _names_story(record: CurationRecord) -> list[SafeString]:
    """An owner's name (issue 31, :mod:`curation.names`): the name added, or the display name
    chosen and the one it replaced, and how many papers carry the signed attestation."""
    changes = record.changes or {}
    rid = changes.get("researcher", record.researcher_id)
    who = researcher_phrase(rid, (changes.get("before") or {}).get(str(rid)))
    if record.kind == CurationRecord.Kind.DISPLAY_NAME:
        shown = changes.get("display_name") or {}
        lines = [
            format_html(
                "The researcher who claimed {} chose “{}” as its display name, in place of “{}”{}",
                who,
                changes.get("name", ""),
                shown.get("from", ""),
                _because(record.reason),
            )
        ]
        if changes.get("declared"):
            lines.append(format_html("{}", "The name was new to the record: it is kept among its names."))
    else:
        lines = [
            format_html(
                "The researcher who claimed {} added the name “{}”{}",
                who,
                changes.get("name", ""),
                _because(record.reason),
            )
        ]
    signed = changes.get("attestations") or 0
    if signed:
        lines.append(format_html("Signed into {} of the record.", _count(signed, "paper")))
    return lines


_PURPOSE = {
    CurationRecord.Kind.MERGE: "a re-run keeps these authorships together",
    CurationRecord.Kind.SPLIT: "a re-run keeps the two records apart",
    CurationRecord.Kind.DISTINCT: "a re-run never joins the two",
}


def record_story(record: CurationRecord) -> list[SafeString]:
    """What ``record`` did, as sentences (HTML, escaped, each ending with its full stop):
    the first names the action, the researchers (id linked to the admin, name to the public
    page, paper counts at the time), and the reason; the next ones what moved (papers linked,
    at most :data:`STORY_PAPERS_SHOWN`), ORCID iDs, name variants, follows and the matcher
    constraints written. Reads only ``record.changes`` (the snapshots written by
    :mod:`curation.merge`, :mod:`curation.split`, :mod:`curation.undo`,
    :mod:`curation.pairs`) plus one query for paper titles or researcher names."""
    kind, changes = record.kind, record.changes or {}
    if kind == CurationRecord.Kind.MERGE:
        lines = _merge_story(record) + _proposed(changes)
    elif kind == CurationRecord.Kind.UNDO:
        lines = _undo_story(record)
    elif kind == CurationRecord.Kind.DISTINCT:
        lines = _distinct_story(record)
    elif kind in (CurationRecord.Kind.MERGE_PROPOSAL, CurationRecord.Kind.PROPOSAL_REFUSE):
        lines = _proposal_story(record)
    elif kind in NAME_KINDS:
        lines = _names_story(record)
    elif "source" in changes and "target" in changes:
        # A split, or any later kind that moves authorships from one record to another.
        lines = _split_story(record)
    else:
        lines = _other_story(record)
    marks = changes.get("marks") or []
    if marks:
        lines.append(
            format_html(
                "{} now the editor's decision; the old method, confidence and mark are kept for an undo.",
                _count(len(marks), "link is", "links are"),
            )
        )
    constraints = _constraints(
        changes.get("constraints"), _PURPOSE.get(kind, "a re-run follows this decision")
    )
    return lines + ([constraints] if constraints else [])


def undo_preview(record: CurationRecord) -> list[SafeString]:
    """What undoing ``record`` will do, as sentences (HTML, escaped), read off the shape of
    its ``changes`` (so any undoable kind is told): which records become separate again,
    which papers go back where, which marks come back, what is deleted. Whether the record
    can be undone at all is :func:`curation.undo.curation_undo`'s business."""
    changes = record.changes or {}
    lines = []
    merged = changes.get("merged") or []
    states = changes.get("before") or {}
    if merged:
        lines.append(
            format_html(
                "{} {} again; {} redirecting to researcher {}.",
                _researchers(merged, states, capital=True),
                "becomes a separate record" if len(merged) == 1 else "become separate records",
                "its page stops" if len(merged) == 1 else "their pages stop",
                changes.get("survivor"),
            )
        )
    for source, count in sorted(Counter(m["from"] for m in changes.get("authorships") or []).items()):
        lines.append(
            format_html(
                "{} {} back to researcher {}.",
                _count(count, "paper"),
                "goes" if count == 1 else "go",
                source,
            )
        )
    identities = len(changes.get("identities") or [])
    if identities:
        lines.append(
            format_html(
                "{} {} back too.", _count(identities, "external id"), "goes" if identities == 1 else "go"
            )
        )
    marks = changes.get("marks") or []
    if marks:
        lines.append(
            format_html(
                "{} back the method, confidence, mark (unconfirmed or not) and evidence {}"
                " before this decision.",
                _count(len(marks), "authorship gets", "authorships get"),
                "it had" if len(marks) == 1 else "they had",
            )
        )
    created = changes.get("created_researcher")
    if created:
        lines.append(format_html("Researcher {}, which the split created, is deleted.", created))
    moved = changes.get("proposal_status")
    if moved:
        lines.append(
            format_html("{}", "The merge proposal is withdrawn.")
            if moved["from"] is None
            else format_html("The merge proposal waits for an editor again ({} now).", moved["to"])
        )
    if record.kind in NAME_KINDS:
        state = states.get(str(changes.get("researcher"))) or {}
        lines.append(
            format_html(
                "The record is named “{}” again and keeps only the names it had before; "
                "the signed attestations are withdrawn.",
                state.get("display_name", ""),
            )
        )
    lines.append(
        format_html(
            "{}",
            "Follows and the matcher constraints it changed are restored; "
            "the original record stays in the log.",
        )
    )
    return lines
