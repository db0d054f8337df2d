import { expect } from "chai";
import express from "express";

import { weakEtag } from "../../src/http/etag.js";

describe("weakEtag: Express's default ETag from a one-shot hash", function () {
  const expressDefault = express().get("etag fn") as (body: string | Buffer, encoding?: BufferEncoding) => string;

  const bodies: Array<[string | Buffer, BufferEncoding | undefined]> = [
    ["", "utf8"],
    ['{"address":"0xAbC","privateKey":"0x01"}', "utf8"],
    ["naïve — ✓ 🚀", "utf8"],
    ["x".repeat(70_000), "utf8"],
    [Buffer.alloc(0), undefined],
    [Buffer.from([0, 1, 2, 250, 255]), undefined],
    ["c2hvcnQ=", "base64"],
  ];

  for (const [body, encoding] of bodies) {
    it(`equals Express's own for ${typeof body === "string" ? `a ${body.length}-character string` : `a ${body.length}-byte buffer`} (${encoding ?? "bytes"})`, function () {
      expect(weakEtag(body, encoding)).to.equal(expressDefault(body, encoding));
    });
  }
});
