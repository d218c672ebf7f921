"""Reads the sandbox's JSON line (abws-sandbox's stdout, the file named by argv[1]) and prints
the environment of the release tests' programs as shell assignments:
ABWS_SETTINGS (the sandbox's JP group), ABWS_BAD_SETTINGS (a wrong client secret),
ABWS_DEAD_SETTINGS (a port where nothing listens), START and END (the sandbox's last month)."""
import datetime
import json
import shlex
import socket
import sys
import urllib.request


def settings_of(sb: dict) -> dict:
    """The C settings of a sandbox's JP group, from its JSON line (scripts/test-c.sh's too)."""
    c = sb["credentials"]
    return {
        "region": "JP",
        "client_id": c["client_id"],
        "client_secret": c["client_secret"],
        "refresh_token": c["refresh_token"],
        "user_email": c["user_email"],
        "endpoint": sb["base_url"],
        "auth_endpoint": sb["auth_url"],
        "rate_limiting": False,
    }


def main() -> None:
    sb = json.load(open(sys.argv[1]))
    c = sb["credentials"]
    settings = settings_of(sb)
    with socket.socket() as s:  # a free port, closed again: nothing listens there
        s.bind(("127.0.0.1", 0))
        dead_url = f"http://127.0.0.1:{s.getsockname()[1]}"
    d = json.load(urllib.request.urlopen(sb["base_url"] + "/_sandbox/dataset", timeout=10))
    end = datetime.date.fromisoformat(d["today"]).replace(day=1) - datetime.timedelta(days=1)
    env = {
        "ABWS_SETTINGS": json.dumps(settings),
        "ABWS_BAD_SETTINGS": json.dumps(dict(settings, client_secret="wrong-" + c["client_secret"])),
        "ABWS_DEAD_SETTINGS": json.dumps(dict(settings, endpoint=dead_url, auth_endpoint=dead_url)),
        "START": end.replace(day=1).isoformat(),
        "END": end.isoformat(),
    }
    for k, v in env.items():
        print(f"{k}={shlex.quote(v)}")


if __name__ == "__main__":
    main()
