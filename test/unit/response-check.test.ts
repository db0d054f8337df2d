import { expect } from "chai";

import { checkResponseAgainstOpenApi, documentedOperation, ResponseSchemaMismatch } from "../helpers/openapi-responses.js";

const json = "application/json; charset=utf-8";
const wallet = { address: "0x35982b41b5De53bF29c070e6d8f1e8CFB50E77B0", privateKey: "0x01", chain: "ethereum", network: "sepolia" };

function mismatch(run: () => void): string {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(ResponseSchemaMismatch);
    return (error as Error).message;
  }
  expect.fail("the response was accepted");
}

describe("test helpers — responses checked against /openapi.json", function () {
  it("finds the operation of a request under /api/v1 and /v1, whatever the path parameter, /health, and none for other paths", function () {
    expect(documentedOperation("POST", "/api/v1/wallets")?.path).to.equal("/api/v1/wallets");
    expect(documentedOperation("GET", "/v1/tokens/address=0xabc/balance?chain=ethereum")?.path).to.equal(
      "/api/v1/tokens/{address}/balance",
    );
    expect(documentedOperation("POST", "http://127.0.0.1:8080/v1/tokens/mint")?.path).to.equal("/api/v1/tokens/mint");
    expect(documentedOperation("GET", "/api/v1/operations")?.method).to.equal("get");
    expect(documentedOperation("PUT", "/api/v1/wallets")).to.equal(undefined);
    expect(documentedOperation("GET", "//api/v1/networks")).to.equal(undefined);
    expect(documentedOperation("GET", "/health")?.path).to.equal("/health");
    expect(documentedOperation("GET", "/metrics")).to.equal(undefined);
  });

  it("accepts a documented status whose body matches its schema", function () {
    checkResponseAgainstOpenApi("POST", "/v1/wallets", { status: 200, contentType: json, body: wallet });
    checkResponseAgainstOpenApi("POST", "/api/v1/wallets", {
      status: 400,
      contentType: json,
      body: { error: { code: "INVALID_ARGUMENT", message: "chain is required", field: "chain" } },
    });
  });

  it("fails on a body that does not match, naming the route, the status and the schema path", function () {
    const { privateKey: _privateKey, ...withoutKey } = wallet;
    const message = mismatch(() =>
      checkResponseAgainstOpenApi("POST", "/api/v1/wallets", { status: 200, contentType: json, body: { ...withoutKey, extra: 1 } }),
    );
    expect(message).to.include("POST /api/v1/wallets");
    expect(message).to.include("answered 200");
    expect(message).to.include("#/paths/~1api~1v1~1wallets/post/responses/200/content/application~1json/schema");
    expect(message).to.include("must have required property 'privateKey'");
    expect(message).to.include('must NOT have additional properties "extra"');
  });

  it("fails on a status the operation does not document, and on text where JSON is documented", function () {
    expect(mismatch(() => checkResponseAgainstOpenApi("GET", "/api/v1/networks", { status: 500, contentType: json, body: {} }))).to.match(
      /GET \/api\/v1\/networks .*answered 500, a status \/openapi.json does not document for it \(documented: 200, /,
    );
    expect(
      mismatch(() => checkResponseAgainstOpenApi("POST", "/api/v1/wallets", { status: 200, contentType: "text/html", body: "<html>" })),
    ).to.include("answered 200 as text/html");
  });
});
