/** A connection string without its password or parameters, fit for a startup banner. */
export function printableDatabaseUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    const user = url.username ? `${url.username}@` : "";
    return `${url.protocol}//${user}${url.host}${url.pathname}`;
  } catch {
    return "a PostgreSQL server (DATABASE_URL)";
  }
}
