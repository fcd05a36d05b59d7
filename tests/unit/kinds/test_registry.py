"""The registry is complete and consistent, and the docs and chart are made from it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from notifier.kinds.pod import POD, Pod
from notifier.kinds.registry import BUILT_IN, BUILT_IN_KINDS, decode_object, spec_of
from notifier.kinds.spec import KindSpec
from notifier.objects import Kind, ObjectMeta
from scripts.kinds_reference import (
    CHART_MARKERS,
    DOC_MARKERS,
    DOCS,
    HELPERS,
    RULES,
    SCHEMA,
    chart_helper,
    docs_section,
    kind_names,
    replaced,
    schema_kinds,
    words_table,
)

REGENERATE = "regenerate: python -m scripts.kinds_reference"


def test_every_kind_named_in_code_has_one_spec() -> None:
    """A kind's module is all a new kind needs: a ``Kind`` constant is optional."""
    assert set(BUILT_IN_KINDS) >= {
        value for value in vars(Kind).values() if isinstance(value, Kind)
    }
    assert len({spec.struct for spec in BUILT_IN}) == len(BUILT_IN)


def test_objects_find_their_spec_and_decode_back_by_their_kind() -> None:
    for spec in BUILT_IN:
        obj = spec.struct(metadata=ObjectMeta(name="x", namespace="ns"))
        assert spec_of(obj) is spec
        assert decode_object(json.dumps({"kind": spec.kind.value}).encode()) == spec.struct()


def test_a_spec_whose_struct_has_another_tag_fails_at_import() -> None:
    with pytest.raises(TypeError, match="must be tagged 'Deployment'"):
        KindSpec(**{**_fields(POD), "kind": Kind.DEPLOYMENT})


def test_a_spec_whose_severities_name_unknown_states_fails_at_import() -> None:
    with pytest.raises(TypeError, match="unknown states"):
        KindSpec(**{**_fields(POD), "critical": ("CrashLoopBackoff",)})


def test_a_spec_missing_a_part_fails_at_import() -> None:
    fields = _fields(POD)
    del fields["facts"]
    with pytest.raises(TypeError, match="facts"):
        KindSpec(**fields)


def test_states_and_signals_do_not_share_names_within_a_kind() -> None:
    for spec in BUILT_IN:
        assert not set(spec.states) & set(spec.all_signals), spec.kind


def test_docs_list_every_kind_as_the_registry_says() -> None:
    text = DOCS.read_text()
    assert replaced(text, DOC_MARKERS, docs_section()) == text, REGENERATE
    rules = RULES.read_text()
    assert replaced(rules, DOC_MARKERS, words_table()) == rules, REGENERATE


def test_chart_rbac_and_schema_list_every_kind_as_the_registry_says() -> None:
    text = HELPERS.read_text()
    assert replaced(text, CHART_MARKERS, chart_helper()) == text, REGENERATE
    assert schema_kinds(json.loads(SCHEMA.read_text()))["enum"] == kind_names(), REGENERATE


def _fields(spec: KindSpec[Pod]) -> dict[str, Any]:
    names = [
        "kind", "struct", "api", "summary", "states", "signals", "states_of", "diff", "facts",
        "share", "signals_between", "edge_states", "owner", "critical", "warning",
    ]  # fmt: skip
    return {name: getattr(spec, name) for name in names}
