import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

import { expect } from "chai";

import { ALL_ERROR_CODES, ERROR_CATALOG, isKnownErrorCode } from "../../src/domain/errors.js";
import { HttpError, HttpErrorCode, STATUS_BY_CORE_CODE, codesWithStatus } from "../../src/http/http-errors.js";
import { toErrorResponse } from "../../src/http/middleware/errors.js";
import { buildOpenApiDocument } from "../../src/http/openapi.js";
import { API_ROUTES } from "../../src/http/routes/index.js";
import { TokenServiceError } from "../../src/domain/errors.js";

const SRC = path.resolve(import.meta.dirname, "../..", "src");

/** Every TypeScript source of src/, the generated client types left out. */
function sources(): Array<{ file: string; text: string }> {
  return (readdirSync(SRC, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; name: string; parentPath: string }>)
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .map((file) => ({ file: path.relative(SRC, file), text: readFileSync(file, "utf8") }));
}

/** The codes a source uses: through the code constants, as a literal `code: "X"`, or as isTokenServiceError's argument. */
function usedCodes(text: string): string[] {
  const patterns = [
    /\b(?:ErrorCode|HttpErrorCode|RecordErrorCode)\.([A-Z][A-Z0-9_]*)\b/g,
    // A record's error: `error: { code: "X", …` or `{ code: "X", message: … }` (a Node error's `code: "E…"` is no service code).
    /\berror:\s*\{\s*code:\s*"([A-Z][A-Z0-9_]*)"/g,
    /\bcode:\s*"([A-Z][A-Z0-9_]*)",\s*message:/g,
    /\bisTokenServiceError\([^,()]+,\s*"([A-Z][A-Z0-9_]*)"\)/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]!));
}

describe("the error catalog (src/domain/errors.ts) is the one list of codes", function () {
  const files = sources().filter(({ file }) => file !== path.join("domain", "errors.ts"));

  it("holds every code used anywhere in src/, stored codes included", function () {
    const unknown = files.flatMap(({ file, text }) =>
      usedCodes(text)
        .filter((code) => !isKnownErrorCode(code))
        .map((code) => `${file}: ${code}`),
    );
    expect(unknown, "codes missing from ERROR_CATALOG").to.deep.equal([]);
    // The scan finds what it looks for: the record codes the tracker stores, the HTTP layer's, the core's.
    const used = new Set(files.flatMap(({ text }) => usedCodes(text)));
    for (const code of ["TRANSACTION_REVERTED", "TRANSACTION_DROPPED", "INTERNAL", "NOT_FOUND", "INVALID_ADDRESS"]) {
      expect(used.has(code), code).to.equal(true);
    }
  });

  it("has no code that src/ never uses", function () {
    const used = new Set(files.flatMap(({ text }) => usedCodes(text)));
    expect(ALL_ERROR_CODES.filter((code) => !used.has(code))).to.deep.equal([]);
  });

  it("gives every code a title, a description and a status (null only for codes a record alone carries)", function () {
    for (const code of ALL_ERROR_CODES) {
      const descriptor = ERROR_CATALOG[code];
      expect(descriptor.title, code).to.match(/\S/);
      expect(descriptor.description, code).to.match(/\S/);
      if (descriptor.source === "record") expect(descriptor.httpStatus, code).to.equal(null);
      else expect(descriptor.httpStatus, code).to.be.within(400, 599);
    }
  });

  it("is where HTTP answers take their status from", function () {
    for (const [code, status] of Object.entries(STATUS_BY_CORE_CODE)) {
      expect(toErrorResponse(new TokenServiceError(code as keyof typeof STATUS_BY_CORE_CODE, "x")).status, code).to.equal(status);
      expect(status, code).to.equal(ERROR_CATALOG[code as keyof typeof STATUS_BY_CORE_CODE].httpStatus);
    }
    for (const code of Object.values(HttpErrorCode)) {
      expect(toErrorResponse(new HttpError(code, "x")).status, code).to.equal(ERROR_CATALOG[code].httpStatus);
    }
    expect(toErrorResponse(new Error("a bug"))).to.deep.include({ status: 500 });
  });

  it("is where /openapi.json takes each error response's codes and text from", function () {
    const document = buildOpenApiDocument(API_ROUTES, "test") as {
      paths: Record<string, Record<string, { responses: Record<string, any> }>>;
    };
    let checked = 0;
    for (const methods of Object.values(document.paths)) {
      for (const operation of Object.values(methods) as any[]) {
        for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
          // /health's and /health/ready's 503 is their own report, not an error.
          if (Number(status) < 400 || (["health", "healthReady"].includes(operation.operationId) && status === "503")) continue;
          const codes = codesWithStatus(Number(status));
          const schema = response.content["application/json"].schema;
          expect(schema.properties.error.properties.code.enum, status).to.deep.equal(codes);
          for (const code of codes) expect(response.description).to.include(`\`${code}\`: ${ERROR_CATALOG[code].title}`);
          checked++;
        }
      }
    }
    expect(checked).to.be.greaterThan(50);
  });
});
