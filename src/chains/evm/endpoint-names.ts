/** The host of an endpoint URL, fit to print: never its credentials (user:pass@) nor its path (where many providers put the key). */
export function printableHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return redactEndpoint(url);
  }
}

/** Credentials in an endpoint URL (user:pass@ or an API key in the path) are never printed. */
export function redactEndpoint(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.length > 1 ? "/…" : ""}`;
  } catch {
    return "(invalid URL)";
  }
}

/** A printable host for each URL, told apart when two share a host (two keys at one provider): "a.example", "a.example#2". */
export function endpointLabels(urls: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return urls.map((url) => {
    const host = printableHost(url);
    const count = (seen.get(host) ?? 0) + 1;
    seen.set(host, count);
    return count === 1 ? host : `${host}#${count}`;
  });
}
