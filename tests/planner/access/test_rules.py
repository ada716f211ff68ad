"""Groups resolve to the strongest mapped role; files with mistakes are refused naming the line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.access.rules import ADMIN, FINANCE, PLANNER, ROLES, VIEWER, Rule, RuleError, parse, resolve

RULES = [
    Rule("hpc-admins", ADMIN),
    Rule("hpc-planners", PLANNER, source="oidc"),
    Rule("research-finance", FINANCE),
    Rule("genomics-pis", VIEWER, ("ggs",)),
    Rule("chem-pis", VIEWER, ("scb",), source="ldap"),
]


def test_a_member_of_no_mapped_group_gets_no_role() -> None:
    access = resolve(["staff", "everyone"], RULES, "oidc")
    assert access.role is None and access.departments == () and access.unmatched_groups == ("staff", "everyone")


def test_the_strongest_role_wins_and_viewers_departments_are_dropped_for_it() -> None:
    access = resolve(["genomics-pis", "hpc-planners"], RULES, "oidc")
    assert access.role == PLANNER and access.departments == ()


def test_a_viewer_in_two_groups_sees_both_departments() -> None:
    access = resolve(["genomics-pis", "chem-pis"], RULES, "ldap")
    assert access.role == VIEWER and access.departments == ("ggs", "scb")


def test_a_rule_for_one_source_does_not_apply_to_another() -> None:
    assert resolve(["hpc-planners"], RULES, "ldap").role is None
    assert resolve(["chem-pis"], RULES, "oidc").role is None


def test_group_names_match_without_regard_to_case_and_reasons_name_the_rule() -> None:
    access = resolve(["Research-Finance"], RULES, "saml")
    assert access.role == FINANCE
    assert access.reasons == ("group 'research-finance' (any) -> finance",)


@given(st.lists(st.sampled_from([r.group for r in RULES] + ["other"]), max_size=6), st.sampled_from(["oidc", "ldap"]))
def test_the_role_is_always_the_strongest_of_the_matching_rules(groups: list[str], source: str) -> None:
    matching = [r.role for r in RULES if any(r.matches(g, source) for g in groups)]
    access = resolve(groups, RULES, source)
    assert access.role == (min(matching, key=ROLES.index) if matching else None)


def test_yaml_and_csv_files_give_the_same_rules() -> None:
    yaml_text = """mappings:
  - {group: hpc-admins, role: admin}
  - {group: genomics-pis, role: viewer, departments: [ggs, gen]}
  - {group: hpc-planners, role: planner, source: oidc}
"""
    csv_text = "group,role,departments,source\nhpc-admins,admin,,\ngenomics-pis,department viewer,ggs;gen,any\n" \
               "hpc-planners,planner,,oidc\n"
    assert parse(yaml_text, "m.yaml") == parse(csv_text, "m.csv") == [
        Rule("hpc-admins", ADMIN), Rule("genomics-pis", VIEWER, ("ggs", "gen")), Rule("hpc-planners", PLANNER,
                                                                                        source="oidc")]


@pytest.mark.parametrize(("text", "name", "message"), [
    ("group,role\nhpc,superuser\n", "m.csv", "m.csv: line 2: role 'superuser' is not one of"),
    ("group,role\npis,department viewer\n", "m.csv", "m.csv: line 2: a department viewer rule needs at least one"),
    ("group,role,departments\nhpc,planner,ggs\n", "m.csv", "line 2: departments only apply to department viewers"),
    ("name,role\nhpc,admin\n", "m.csv", "m.csv: line 1: the header needs columns group and role (missing group)"),
    ("mappings:\n  - {group: a, role: admin, source: kerberos}\n", "m.yaml", "mapping 1: source 'kerberos'"),
    ("mappings: [\n", "m.yaml", "m.yaml, line 2, column 1: not valid YAML"),
    ("mappings:\n  - {group: a, role: admin}\n  - {group: A, role: planner}\n", "m.yaml",
     "mapping 2: group 'A' (any) is already mapped by mapping 1"),
])
def test_a_bad_file_is_refused_with_the_file_line_and_reason(text: str, name: str, message: str) -> None:
    with pytest.raises(RuleError) as caught:
        parse(text, name)
    assert message in str(caught.value)
