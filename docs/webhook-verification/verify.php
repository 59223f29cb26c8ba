<?php
// Verifies a Partner Delivery Platform webhook (X-Service-Signature) in PHP 8, standard library only.
// Copy verify_webhook into your receiver; hand it the raw body, exactly as received:
//   verify_webhook(file_get_contents('php://input'), $_SERVER['HTTP_X_SERVICE_SIGNATURE'] ?? '', [$secret])

declare(strict_types=1);

/**
 * @param string   $rawBody          the request body as received, before any json_decode
 * @param string   $header           the X-Service-Signature header: "t=<unix>,v1=<hex>[,v1=<hex>]"
 * @param string[] $secrets          your endpoint's secret(s), "whsec_…" as shown at creation or rotation
 * @param int      $toleranceSeconds how far t may be from now (replay protection)
 */
function verify_webhook(string $rawBody, string $header, array $secrets, int $toleranceSeconds = 300, ?int $now = null): bool
{
    $t = null;
    $signatures = [];
    foreach (explode(',', $header) as $part) {
        $field = explode('=', trim($part), 2);
        if (count($field) !== 2) {
            continue;
        }
        if ($field[0] === 't' && $t === null) {
            $t = $field[1];
        } elseif ($field[0] === 'v1') {
            $signatures[] = $field[1];
        }
    }
    // ASCII digits only, the whole value: \z, since $ would also allow a final newline.
    if ($t === null || preg_match('/\A[0-9]{1,12}\z/', $t) !== 1) {
        return false;
    }
    if (abs(($now ?? time()) - (int) $t) > $toleranceSeconds) {
        return false;
    }
    foreach ($secrets as $secret) {
        $expected = hash_hmac('sha256', $t . '.' . $rawBody, $secret);
        foreach ($signatures as $signature) {
            // Constant time for the known string's length; a different length is refused at once.
            if (hash_equals($expected, $signature)) {
                return true;
            }
        }
    }
    return false;
}

// As a command (used by the project's tests): php verify.php <body-file> <header> <secret>... [--tolerance=S]
if (PHP_SAPI === 'cli' && isset($argv[0]) && realpath($argv[0]) === __FILE__) {
    $tolerance = 300;
    $rest = [];
    foreach (array_slice($argv, 1) as $arg) {
        if (str_starts_with($arg, '--tolerance=')) {
            $tolerance = (int) substr($arg, strlen('--tolerance='));
        } else {
            $rest[] = $arg;
        }
    }
    $ok = verify_webhook((string) file_get_contents($rest[0]), $rest[1], array_slice($rest, 2), $tolerance);
    echo $ok ? "valid\n" : "invalid\n";
    exit($ok ? 0 : 1);
}
