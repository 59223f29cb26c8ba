"""Verifies a Partner Delivery Platform webhook (X-Service-Signature) in Python 3, standard library only.
Copy verify_webhook into your receiver; hand it the raw body bytes, exactly as received."""
import hashlib
import hmac
import time


def verify_webhook(raw_body: bytes, header: str, secrets: list[str], tolerance_seconds: int = 300, now: float | None = None) -> bool:
    fields = [part.strip().split("=", 1) for part in header.split(",")]
    t = next((f[1] for f in fields if len(f) == 2 and f[0] == "t"), None)
    # ASCII digits only: str.isdigit() also says yes to "²", which int() then refuses.
    if t is None or not (t.isascii() and t.isdigit()):
        return False
    if abs((time.time() if now is None else now) - int(t)) > tolerance_seconds:
        return False
    signatures = [f[1] for f in fields if len(f) == 2 and f[0] == "v1"]
    for secret in secrets:
        expected = hmac.new(secret.encode(), t.encode() + b"." + raw_body, hashlib.sha256).hexdigest()
        # As bytes: compare_digest raises on a str that is not ASCII, and a header may hold anything.
        if any(hmac.compare_digest(expected.encode(), s.encode("utf-8", "surrogateescape")) for s in signatures):
            return True
    return False


if __name__ == "__main__":
    # As a command (used by the project's tests): python3 verify.py <body-file> <header> <secret>... [--tolerance=S]
    import sys

    args = sys.argv[1:]
    tolerance = next((a for a in args if a.startswith("--tolerance=")), None)
    rest = [a for a in args if a != tolerance]
    with open(rest[0], "rb") as f:
        body = f.read()
    ok = verify_webhook(body, rest[1], rest[2:], int(tolerance.split("=")[1]) if tolerance else 300)
    print("valid" if ok else "invalid")
    sys.exit(0 if ok else 1)
