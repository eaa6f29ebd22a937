"""SAM -> CloudFormation, offline, as `sam validate` translates it (runs in .venv-sam).

cfn-lint checks SAM resources against a schema but does not run the transform, so some
mistakes (a retry count out of range, a bad runtime) only show in the translated output.
Usage: .venv-sam/bin/python infra/translate.py infra/template.yaml OUT.yaml
"""

import sys

from samcli.lib.translate.sam_template_validator import SamTemplateValidator
from samcli.yamlhelper import yaml_parse


class _NoIamLookups:
    """Managed policies must be named by ARN: resolving a name would need AWS."""

    def load(self):
        raise SystemExit("a managed policy is named, not given by ARN: that needs AWS to resolve")


def main(source: str, target: str) -> None:
    with open(source, encoding="utf-8") as handle:
        sam = yaml_parse(handle.read())
    validator = SamTemplateValidator(sam, _NoIamLookups(), region="us-east-1")
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(validator.get_translated_template_if_valid())


if __name__ == "__main__":
    main(*sys.argv[1:3])
