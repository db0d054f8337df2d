import { expect } from "chai";

import { buildOpenApiDocument } from "../../../src/http/openapi.js";
import { API_ROUTES } from "../../../src/http/routes/index.js";
import { API_TAGS } from "../../../src/http/tags.js";
import { parseWith } from "../../../src/http/validation.js";
import type { RouteDefinition } from "../../../src/http/route.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";

type Operation = {
  operationId: string;
  tags?: string[];
  parameters?: unknown;
  requestBody?: { content: { "application/json": { schema: unknown; examples?: Record<string, { value: unknown }> } } };
  responses: unknown;
  description?: string;
};

const document = buildOpenApiDocument(API_ROUTES, "test") as unknown as {
  tags: Array<{ name: string }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
};

const operations = (paths: Record<string, Record<string, Operation>>) =>
  Object.entries(paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));

/** What the route itself does with a body before its handler runs: its own validation. */
const validate = (route: RouteDefinition, body: unknown) => (route.validateBody ? route.validateBody(body) : parseWith(route.body!, body));

const canonicalPath = (route: RouteDefinition) => `/api/v1${route.paths[0]!.replace(/:(\w+)/g, "{$1}")}`;

describe("/openapi.json — groups, examples and the /v1 aliases", function () {
  it("puts every operation and webhook event in one declared group, none in Swagger UI's 'default'", function () {
    const declared = document.tags.map((tag) => tag.name);
    expect(declared).to.deep.equal(API_TAGS.map((tag) => tag.name));
    for (const { path, method, operation } of [...operations(document.paths), ...operations(document.webhooks)]) {
      expect(operation.tags, `${method} ${path}`).to.have.length(1);
      expect(declared, `${method} ${path}`).to.include(operation.tags![0]);
    }
    const used = new Set([...operations(document.paths), ...operations(document.webhooks)].map(({ operation }) => operation.tags![0]));
    expect(
      declared.filter((tag) => !used.has(tag)),
      "declared groups without an operation",
    ).to.deep.equal([]);
  });

  it("gives every request body examples, each of which passes the route's own validation", function () {
    const withBody = API_ROUTES.filter((route) => route.body !== undefined);
    expect(withBody.map((route) => route.operationId)).to.include.members([
      "createWallet",
      "launchToken",
      "mintToken",
      "faucet",
      "createWebhook",
    ]);
    for (const route of withBody) {
      const content = document.paths[canonicalPath(route)]![route.method]!.requestBody!.content["application/json"];
      const examples = Object.entries(content.examples ?? {});
      expect(examples, route.operationId).not.to.have.length(0);
      expect(Object.fromEntries(examples)).to.deep.equal(route.bodyExamples);
      for (const [name, example] of examples) {
        expect(() => validate(route, structuredClone(example.value)), `${route.operationId} example ${name}`).not.to.throw();
      }
    }
  });

  it("documents the /v1 alias of every /api/v1 operation: the same parameters, body and answers, under its own id", function () {
    const ids = operations(document.paths).map(({ operation }) => operation.operationId);
    expect(new Set(ids).size, "operationIds are unique").to.equal(ids.length);
    for (const route of API_ROUTES.filter((candidate) => candidate.auth)) {
      const canonical = document.paths[canonicalPath(route)]![route.method]!;
      const alias = document.paths[canonicalPath(route).replace(/^\/api\/v1/, "/v1")]?.[route.method];
      expect(alias, `${route.method} /v1 alias of ${route.operationId}`).not.to.equal(undefined);
      expect(alias!.operationId).to.equal(`${route.operationId}V1Alias`);
      expect(alias!.tags).to.deep.equal(["v1 aliases"]);
      expect(alias!.description).to.match(new RegExp(`^Alias of \`${route.method.toUpperCase()} /api/v1`));
      expect(alias!.parameters).to.deep.equal(canonical.parameters);
      expect(alias!.requestBody).to.deep.equal(canonical.requestBody);
      expect(alias!.responses).to.deep.equal(canonical.responses);
    }
    // The typed client is generated without them.
    const forClient = buildOpenApiDocument(API_ROUTES, "test", { aliases: false }) as { paths: Record<string, unknown> };
    expect(Object.keys(forClient.paths).filter((path) => path.startsWith("/v1/"))).to.deep.equal([]);
  });

  describe("“Try it out” with the documented example bodies, against a running service", function () {
    let api: RunningServer;

    before(async function () {
      api = await startServer();
    });

    after(async function () {
      await api?.stop();
    });

    /** The document's example of a route, by name. */
    const example = (operationId: string, name: string) => {
      const route = API_ROUTES.find((candidate) => candidate.operationId === operationId)!;
      return { path: canonicalPath(route), value: route.bodyExamples![name]!.value };
    };

    it("accepts each (webhooks aside: their URL is checked against DNS), in the order a reader tries them", async function () {
      // Launched first: the mint examples name the contract the example account's nonce 0 creates.
      const expected: Array<[string, string, number]> = [
        ["createWallet", "evm", 200],
        ["createWallet", "bitcoin", 200],
        ["launchToken", "signedByService", 200],
        ["launchToken", "erc721", 200],
        ["mintToken", "erc20", 200],
        // Nonces 3 and 4: the collection and the mintable ERC20 the ERC1155 and batch mint examples name.
        ["launchToken", "erc1155", 200],
        ["launchToken", "erc20WithOptions", 200],
        ["mintToken", "erc1155", 200],
        ["mintToken", "erc1155Ids", 200],
        ["mintToken", "batch", 200],
        ["faucet", "evm", 200],
        ["launchToken", "prepare", 200],
        ["mintToken", "prepare", 200],
      ];
      for (const [operationId, name, status] of expected) {
        const { path, value } = example(operationId, name);
        const answer = await api.call("POST", `${path}${operationId === "launchToken" && name !== "prepare" ? "?wait=mined" : ""}`, value);
        expect(answer.status, `${operationId} ${name}: ${JSON.stringify(answer.body)}`).to.equal(status);
      }
      const launched = example("launchToken", "signedByService").value;
      const balance = await api.call(
        "GET",
        `/api/v1/wallets?chain=ethereum&network=sepolia&address=${String(launched.sender)}&erc20TokenContractAddresses=0x5FbDB2315678afecb367f032d93F642f64180aa3`,
      );
      expect(balance.body.balances.GLD).to.include({ uiBalance: "1000" });
    });
  });
});
