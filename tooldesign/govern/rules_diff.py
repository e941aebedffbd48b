"""Rules across arguments (``AtLeastOne``, ``ExactlyOne``, ``When``) added to or removed from a
tool's payload, read from the keywords the catalog's schema states them with: a rule added
refuses calls that were taken (it breaks models and their callers); a rule removed takes more.
A rule that replaces one it only loosens (``AtLeastOne`` over more arguments, a ``When``
requiring fewer, the same names in another order) refuses no call the old one took: it is
compatible, named as the change it is, not as a rule added."""

from __future__ import annotations

from tooldesign.contract.rules import ArgumentRule, same_json
from tooldesign.govern.changes import Change


def rule_changes(
    old: tuple[ArgumentRule, ...], new: tuple[ArgumentRule, ...], pointer: str
) -> list[Change]:
    changes: list[Change] = []
    gone = [rule for rule in old if rule not in new]
    loosened: set[ArgumentRule] = set()
    for rule in new:
        if rule in old:
            continue
        before = next((o for o in gone if o not in loosened and implies(o, rule)), None)
        if before is not None:
            loosened.add(before)
            changes.append(
                Change(
                    "compatible",
                    "rule_loosened",
                    f"rule loosened: {before.dsl} → {rule.dsl} ({rule.words()}): every call "
                    "taken before is still taken",
                    pointer,
                    old=before.dsl,
                    new=rule.dsl,
                )
            )
            continue
        changes.append(
            Change(
                "models",
                "rule_added",
                f"rule added: {rule.dsl} ({rule.words()}): calls that break it, taken "
                "before, are refused",
                pointer,
                new=rule.dsl,
            )
        )
    for rule in gone:
        if rule not in loosened:
            changes.append(
                Change(
                    "compatible",
                    "rule_removed",
                    f"rule removed: {rule.dsl} ({rule.words()}): calls that broke it are taken",
                    pointer,
                    old=rule.dsl,
                )
            )
    return changes


def implies(old: ArgumentRule, new: ArgumentRule) -> bool:
    """Whether every call keeping ``old`` keeps ``new`` (so ``new`` in its place refuses no
    call ``old`` took)."""
    if new.kind == "at_least_one" and old.kind in ("at_least_one", "exactly_one"):
        return set(old.names) <= set(new.names)
    if new.kind == old.kind == "exactly_one":
        return set(old.names) == set(new.names)
    if new.kind == old.kind == "when":
        return (
            old.field == new.field
            and same_json(old.equals, new.equals)
            and set(new.names) <= set(old.names)
            and set(new.otherwise) <= set(old.otherwise)
        )
    return False
