import type { RequestHandler } from "express";
import helmet from "helmet";

/**
 * Headers every answer carries (helmet): no MIME sniffing, no framing, no referrer, and a content security policy that
 * lets /docs (Swagger UI from this service's own files) run and nothing else: scripts and connections to this origin
 * only; inline styles, which Swagger UI sets on its elements. HSTS is left to the TLS terminator in front of the
 * service (a plain-HTTP service on localhost must not pin a browser to HTTPS), and so is upgrading insecure requests.
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", "data:"],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: "deny" },
    referrerPolicy: { policy: "no-referrer" },
    strictTransportSecurity: false,
  });
}

/** API answers are never cached: a wallet's answer carries its private key, and every other one a moment's state. */
export const noStore: RequestHandler = (_request, response, next) => {
  response.setHeader("Cache-Control", "no-store");
  next();
};
