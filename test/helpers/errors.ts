import { expect } from "chai";

import { TokenServiceError, type ErrorCode } from "../../src/domain/errors.js";

/** Every surface of an error a client or a log could see. */
export function errorSurfaces(error: unknown): string[] {
  if (!(error instanceof Error)) return [String(error)];
  const surfaces = [error.message, String(error), error.stack ?? ""];
  if (error instanceof TokenServiceError) {
    surfaces.push(JSON.stringify(error), JSON.stringify(error.toJSON()), JSON.stringify(error.details ?? {}), error.field ?? "");
  }
  return surfaces;
}

/** Fails when any surface of `error` quotes one of the secrets (with or without its 0x prefix). */
export function expectNoSecret(error: unknown, secrets: Iterable<string>): void {
  for (const secret of secrets) {
    const bare = secret.replace(/^0x/, "");
    for (const surface of errorSurfaces(error)) {
      expect(surface.toLowerCase(), "an error surface quotes a private key").not.to.include(bare.toLowerCase());
    }
  }
}

/**
 * Runs `action` and returns the TokenServiceError it must throw, after checking
 * its code, the field it names and that it never quotes a secret.
 */
export async function expectServiceError(
  action: Promise<unknown> | (() => unknown),
  code: ErrorCode,
  field: string | undefined,
  secrets: Iterable<string> = [],
): Promise<TokenServiceError> {
  let thrown: unknown;
  try {
    await (typeof action === "function" ? action() : action);
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a ${code} error, but nothing was thrown`).to.be.instanceOf(TokenServiceError);
  const error = thrown as TokenServiceError;
  expect(error.code, error.message).to.equal(code);
  expect(error.field, `field of ${code}: ${error.message}`).to.equal(field);
  expect(error.message).to.be.a("string").and.not.equal("");
  expect(error.toJSON()).to.include({ code, message: error.message });
  expectNoSecret(error, secrets);
  return error;
}
