"""``manage.py verify_bundle PATH``: verify a provenance bundle file (``-`` reads standard input)."""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser

from provenance.verify import verify_bundle


class Command(BaseCommand):
    help = (
        "Verify a pith bundle: canonical hash, pith number, aliases, receipt, event hashes and "
        "signatures, state, bundle hash and signature, key fingerprints. Exit 0 when all hold, "
        "1 otherwise, naming each failed check."
    )
    requires_system_checks: list = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="bundle JSON file, or - for standard input")
        parser.add_argument(
            "--trusted-keys", metavar="FILE", help="keys JSON (e.g. /.well-known/pith/keys.json)"
        )

    def handle(self, *args, **options) -> None:
        path = options["path"]
        try:
            if path == "-":
                text = sys.stdin.read()
            else:
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        trusted = None
        if options["trusted_keys"]:
            with open(options["trusted_keys"], encoding="utf-8") as handle:
                trusted = json.load(handle)["public_keys"]
        report = verify_bundle(text, trusted_keys=trusted)
        for check in report.checks:
            if check.ok is False:
                self.stdout.write(f"FAIL {check.name}: {check.detail}")
            elif check.ok is None and options["verbosity"] >= 1:
                self.stdout.write(f"skip {check.name}: {check.detail}")
            elif options["verbosity"] >= 2:
                self.stdout.write(f"ok   {check.name}")
        if not report.ok:
            self.stdout.write(
                f"bundle INVALID: {len(report.failed)} check(s) failed: {', '.join(report.failed)}"
            )
            sys.exit(1)
        self.stdout.write(f"bundle OK: {sum(c.ok is True for c in report.checks)} checks passed")
