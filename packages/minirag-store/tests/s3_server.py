"""A real S3 API on loopback for the object-store tests: moto's server, with authentication on.

The server checks every request's signature against an IAM user it creates, so a wrong
secret is refused as by a real bucket (``SignatureDoesNotMatch``), and the real secret is a
recognisable value the tests look for in every output. It keeps its state in the test
process, so :meth:`S3.stop` then :meth:`S3.start` on the same port is an outage, not a
wipe.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

BUCKET = "minirag-test"
REGION = "us-east-1"
_POLICY = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}],
}


@dataclass
class S3:
    """A running moto S3 server and the credentials it accepts."""

    port: int
    key_id: str
    secret: str
    server: Any = field(repr=False)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def uri(self, name: str = "") -> str:
        """A fresh index URI in the test bucket."""
        return f"s3://{BUCKET}/{name or 'idx'}-{uuid.uuid4().hex[:10]}"

    def process_env(self, secret: str | None = None) -> dict[str, str]:
        """The standard AWS variables LanceDB and the sync lease read."""
        return {
            "AWS_ACCESS_KEY_ID": self.key_id,
            "AWS_SECRET_ACCESS_KEY": self.secret if secret is None else secret,
            "AWS_REGION": REGION,
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ALLOW_HTTP": "true",
        }

    def storage_options(self, secret: str | None = None) -> str:
        """The same settings as DB_STORAGE_OPTIONS (for in-process indexes)."""
        return json.dumps({
            "aws_access_key_id": self.key_id,
            "aws_secret_access_key": self.secret if secret is None else secret,
            "aws_region": REGION,
            "aws_endpoint": self.endpoint,
            "allow_http": "true",
        })  # fmt: skip

    def stop(self) -> None:
        """Take the store down (connections are refused until :meth:`start`)."""
        self.server.stop()

    def start(self) -> None:
        """Bring the store back on the same port, with everything it held."""
        from moto.server import ThreadedMotoServer

        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.server.start()


def start_s3() -> S3:
    """Start moto on a free loopback port, create the bucket and a user, then turn on
    signature checking (moto's ``/moto-api/reset-auth``: every later request is checked)."""
    import boto3
    import requests
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    port = server.get_host_and_port()[1]
    endpoint = f"http://127.0.0.1:{port}"
    boot = {
        "endpoint_url": endpoint,
        "region_name": REGION,
        "aws_access_key_id": "bootstrap",
        "aws_secret_access_key": "bootstrap",
    }
    iam = boto3.client("iam", **boot)
    iam.create_user(UserName="minirag")
    key = iam.create_access_key(UserName="minirag")["AccessKey"]
    iam.put_user_policy(UserName="minirag", PolicyName="all-s3", PolicyDocument=json.dumps(_POLICY))
    boto3.client("s3", **boot).create_bucket(Bucket=BUCKET)
    answer = requests.post(f"{endpoint}/moto-api/reset-auth", data=b"0", timeout=10)
    answer.raise_for_status()
    return S3(port, key["AccessKeyId"], key["SecretAccessKey"], server)
