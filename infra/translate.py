"""SAM -> CloudFormation, offline, as `sam validate` translates it (runs in .venv-sam).

cfn-lint checks SAM resources against a schema but does not run the transform, so some
mistakes (a retry count out of range, a bad runtime) only show in the translated output.
The template's loops (AWS::LanguageExtensions) are expanded first, as CloudFormation
expands them before the SAM transform runs, by infra/template.py's `expanded()`: SAM
CLI's own expansion (`--language-extensions`) also puts in every parameter's default
and strips Fn::Sub from strings it cannot resolve, which no deployed stack would see.
Usage: .venv-sam/bin/python infra/translate.py infra/template.yaml OUT.yaml
"""

import copy
import sys
from pathlib import Path

from samcli.lib.translate.sam_template_validator import SamTemplateValidator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from infra.template import expanded  # noqa: E402  (the checkout's root, put first above)


class _NoIamLookups:
    """Managed policies must be named by ARN: resolving a name would need AWS."""

    def load(self):
        raise SystemExit("a managed policy is named, not given by ARN: that needs AWS to resolve")


def main(source: str, target: str) -> None:
    # A copy: the validator rewrites CodeUri in place, and expanded() is shared.
    sam = copy.deepcopy(expanded(Path(source).resolve()))
    validator = SamTemplateValidator(sam, _NoIamLookups(), region="us-east-1")
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(validator.get_translated_template_if_valid())


if __name__ == "__main__":
    main(*sys.argv[1:3])
