"""The template's KMS keys in the emulator, each under its alias (alias/<logical id>), the
same key across restarts.

moto makes a key's material at random when the key is created, and a ciphertext names
its key by id: the webhooks' secrets, encrypted with the stack's key and saved with the
tables in LOCAL_DATA_DIR, would not decrypt under a key made anew at the next start. So
each key's id and material are saved in `kms.json` beside the data when it is made, and
put back into the emulator's KMS (as that id, with that material) when the stack starts
on data that has them. Without a data directory (data in memory) the keys are made at
every start, as the data is. `make reset` removes the file with the data.
"""

import base64
import json

from moto.core import DEFAULT_ACCOUNT_ID
from moto.kms.models import kms_backends

from infra import template
from infra.local.persistence import DataDir, DataError, write_atomically

FORMAT = "logistics-local-kms/1"
KEYS_FILE = "kms.json"


def _saved(directory: DataDir) -> dict[str, dict]:
    path = directory.file(KEYS_FILE)
    if not path.exists():
        return {}
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved["format"] != FORMAT:
            raise ValueError(saved["format"])
        return {
            name: {"id": str(key["id"]), "material": base64.b64decode(key["material"])}
            for name, key in saved["keys"].items()
        }
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(f"Local data: {path} is not this stack's KMS keys ({exc})") from None


def _put_back(kms_client, region: str, name: str, key: dict) -> None:
    """The key `name` as it was saved: a key made now, given the saved id and material
    (moto has no API to import a symmetric key's material), under its alias."""
    backend = kms_backends[DEFAULT_ACCOUNT_ID][region]
    made = kms_client.create_key(Description=name)["KeyMetadata"]["KeyId"]
    restored = backend.keys.pop(made)
    restored.id, restored.arn = key["id"], restored.arn.replace(made, key["id"])
    restored.key_material = key["material"]
    backend.keys[key["id"]] = restored
    kms_client.create_alias(AliasName=template.key_alias(name), TargetKeyId=key["id"])


def keep_keys(kms_client, region: str, directory: DataDir | None) -> dict[str, str]:
    """Every key of the template in the emulator: put back from `directory` when it holds
    them, else made (and saved there); {logical id: key id}."""
    if directory is None:
        return template.create_keys(kms_client)
    saved = _saved(directory)
    for name, key in saved.items():
        _put_back(kms_client, region, name, key)
    made = template.create_keys(kms_client)
    if set(made) - set(saved):
        held = kms_backends[DEFAULT_ACCOUNT_ID][region].keys
        keys = {
            name: {"id": key_id, "material": base64.b64encode(held[key_id].key_material).decode()}
            for name, key_id in made.items()
        }
        text = json.dumps({"format": FORMAT, "keys": keys}, indent=1)
        write_atomically(directory.file(KEYS_FILE), text)
    return made
