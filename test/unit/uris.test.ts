import { expect } from "chai";

import { ErrorCode } from "../../src/domain/errors.js";
import { parseMintUri, parseTokenUri } from "../../src/domain/uris.js";
import { expectServiceError } from "../helpers/errors.js";

describe("token URIs: a scheme wallets fetch, or relative to the base", function () {
  it("takes a token-level URI with ipfs://, ar://, https://, http:// or data:, and none at all", function () {
    for (const uri of [
      "ipfs://bafy/",
      "ar://tx/",
      "https://example.com/items/{id}.json",
      "http://localhost:8080/meta/",
      "data:application/json;base64,e30=",
      "IPFS://Bafy/",
    ]) {
      expect(parseTokenUri(uri, "token.uri")).to.equal(uri);
    }
    expect(parseTokenUri(undefined, "token.uri")).to.equal("");
    expect(parseTokenUri("", "token.uri")).to.equal("");
  });

  it("refuses a token-level URI without a known scheme, or with spaces or control characters, naming the field and the rule", async function () {
    for (const bad of ["my picture", "picture.png", "/art/", "ftp://host/x", "javascript:alert(1)", "ipfs://", "https://a b/"]) {
      const error = await expectServiceError(() => parseTokenUri(bad, "token.uri"), ErrorCode.INVALID_ARGUMENT, "token.uri");
      expect(error.message).to.match(/token\.uri must (be an absolute URI starting with one of ipfs:\/\/|not contain spaces)/);
    }
    await expectServiceError(() => parseTokenUri("ipfs://x\u0000/", "token.uri"), ErrorCode.INVALID_ARGUMENT, "token.uri");
    await expectServiceError(() => parseTokenUri(7, "token.uri"), ErrorCode.INVALID_ARGUMENT, "token.uri");
    await expectServiceError(() => parseTokenUri(`ipfs://${"a".repeat(2048)}`, "token.uri"), ErrorCode.INVALID_ARGUMENT, "token.uri");
  });

  it("takes a per-mint URI absolute with a known scheme, or relative to the token's base URI", function () {
    expect(parseMintUri("7.json", "uri")).to.equal("7.json");
    expect(parseMintUri("art/7.json?v=2", "uri")).to.equal("art/7.json?v=2");
    expect(parseMintUri("ipfs://bafy/7.json", "uri")).to.equal("ipfs://bafy/7.json");
    expect(parseMintUri("", "uri")).to.equal(undefined);
    expect(parseMintUri(undefined, "uri")).to.equal(undefined);
  });

  it("refuses a per-mint URI with spaces, control characters or another scheme, naming the field", async function () {
    for (const [bad, rule] of [
      ["my picture", "spaces"],
      ["x\tjson", "spaces"],
      ["javascript:alert(1)", "relative to the token's base URI"],
      ["file:///etc/passwd", "relative to the token's base URI"],
    ] as const) {
      const error = await expectServiceError(() => parseMintUri(bad, "recipients[1].uri"), ErrorCode.INVALID_ARGUMENT, "recipients[1].uri");
      expect(error.message).to.include(rule);
    }
  });
});
