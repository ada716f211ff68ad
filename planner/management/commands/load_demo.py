import json
import sys

from django.core.management.base import BaseCommand

from planner.demo import load_demo


class Command(BaseCommand):
    help = "Load the demo institution (idempotent): organisation, accounts and each area's demo data."

    def handle(self, *args: object, **options: object) -> None:
        credentials = load_demo(lambda msg: print(msg, file=sys.stderr))
        self.stdout.write(json.dumps({"status": "ok", "accounts": sorted(credentials)}))
