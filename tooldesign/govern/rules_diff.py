"""Rules across arguments (``AtLeastOne``, ``ExactlyOne``, ``When``) added to or removed from a
tool's payload, read from the keywords the catalog's schema states them with: a rule added
refuses calls that were taken (it breaks models and their callers); a rule removed takes more."""

from __future__ import annotations

from tooldesign.contract.rules import ArgumentRule
from tooldesign.govern.changes import Change


def rule_changes(
    old: tuple[ArgumentRule, ...], new: tuple[ArgumentRule, ...], pointer: str
) -> list[Change]:
    changes: list[Change] = []
    for rule in new:
        if rule not in old:
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
    for rule in old:
        if rule not in new:
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
