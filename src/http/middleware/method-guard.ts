import type { RequestHandler } from "express";

import { HttpError, HttpErrorCode } from "../http-errors.js";

/**
 * A fixed path asked with a method it does not take is 405 with `Allow`, not a route with a parameter that happens to
 * match it: `GET /tokens/mint` would otherwise be read as the token contract `mint` (`GET /tokens/:contract`).
 */
export function fixedPathMethods(routes: ReadonlyArray<{ method: string; paths: readonly string[] }>): RequestHandler {
  const methods = new Map<string, Set<string>>();
  for (const route of routes) {
    for (const path of route.paths) {
      if (path.includes(":")) continue;
      const known = methods.get(path) ?? new Set<string>();
      known.add(route.method.toUpperCase());
      if (route.method === "get") known.add("HEAD");
      methods.set(path, known);
    }
  }
  return (request, _response, next) => {
    const allowed = methods.get(request.path);
    if (allowed === undefined || allowed.has(request.method) || request.method === "OPTIONS") return next();
    const allow = [...allowed].sort().join(", ");
    next(
      new HttpError(
        HttpErrorCode.METHOD_NOT_ALLOWED,
        `${request.method} ${request.baseUrl}${request.path} is not a route: it takes ${allow} (see /docs)`,
        undefined,
        { Allow: allow },
      ),
    );
  };
}
