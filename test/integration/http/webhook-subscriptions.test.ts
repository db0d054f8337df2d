import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

import { expect } from "chai";

import { postEvent } from "../../../src/webhooks/post-event.js";
import { RefusedTarget, TargetGuard, isBlockedAddress } from "../../../src/webhooks/target-guard.js";
import { backoffMs } from "../../../src/webhooks/delivery-worker.js";
import { eventually, startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";
import { WebhookReceiver } from "../../helpers/webhook-receiver.js";

// A public address as an IP literal: registration resolves nothing, and nothing is ever sent to it (no operation runs here).
const PUBLIC_URL = "https://93.184.215.14/hooks";

describe("webhooks — subscriptions, scoping and the private-target guard", function () {
  this.timeout(60_000);
  let api: RunningServer;
  let otherKey: string;

  before(async function () {
    api = await startServer();
    otherKey = (await api.server.store.createApiKey("other")).key;
  });

  after(async function () {
    await api?.stop();
  });

  const asOther = { "x-api-key": "" };

  it("registers, lists, reads and deletes a webhook; the secret is shown only at registration", async function () {
    const created = await api.call("POST", "/api/v1/webhooks", { url: PUBLIC_URL, events: ["operation.mined", "operation.failed"] });
    expect(created.status).to.equal(201);
    expect(created.body).to.have.keys("id", "url", "events", "createdAt", "secret");
    expect(created.body.url).to.equal(PUBLIC_URL);
    expect(created.body.events).to.deep.equal(["operation.mined", "operation.failed"]);

    const listed = await api.call("GET", "/api/v1/webhooks");
    expect(listed.status).to.equal(200);
    const item = listed.body.items.find((webhook: { id: string }) => webhook.id === created.body.id);
    expect(item).to.deep.equal({ id: created.body.id, url: PUBLIC_URL, events: created.body.events, createdAt: created.body.createdAt });
    expect(JSON.stringify(listed.body)).not.to.include(created.body.secret);

    const read = await api.call("GET", `/api/v1/webhooks/${created.body.id}`);
    expect(read.body).to.deep.equal(item);
    // Under /v1 too.
    expect((await api.call("GET", `/v1/webhooks/${created.body.id}`)).status).to.equal(200);
    const deliveries = await api.call("GET", `/api/v1/webhooks/${created.body.id}/deliveries`);
    expect(deliveries.body).to.deep.equal({ items: [], nextCursor: null });

    const deleted = await api.call("DELETE", `/api/v1/webhooks/${created.body.id}`);
    expect(deleted.status).to.equal(204);
    expect((await api.call("GET", `/api/v1/webhooks/${created.body.id}`)).status).to.equal(404);
    expect((await api.call("DELETE", `/api/v1/webhooks/${created.body.id}`)).status).to.equal(404);
    expect((await api.call("GET", `/api/v1/webhooks/${created.body.id}/deliveries`)).status).to.equal(404);
  });

  it("scopes webhooks to the API key: another key's webhook is 404 to read, list, delete or list deliveries of", async function () {
    asOther["x-api-key"] = otherKey;
    const mine = await api.call("POST", "/api/v1/webhooks", { url: PUBLIC_URL, events: ["operation.pending"] });
    const theirs = await api.call("POST", "/api/v1/webhooks", { url: PUBLIC_URL, events: ["operation.pending"] }, asOther);
    expect(theirs.status).to.equal(201);
    for (const [method, path] of [
      ["GET", `/api/v1/webhooks/${mine.body.id}`],
      ["GET", `/api/v1/webhooks/${mine.body.id}/deliveries`],
      ["DELETE", `/api/v1/webhooks/${mine.body.id}`],
    ] as const) {
      const answer = await api.call(method, path, undefined, asOther);
      expect(answer.status, `${method} ${path}`).to.equal(404);
      expect(answer.body.error.code).to.equal("NOT_FOUND");
    }
    const theirList = await api.call("GET", "/api/v1/webhooks", undefined, asOther);
    expect(theirList.body.items.map((webhook: { id: string }) => webhook.id)).to.deep.equal([theirs.body.id]);
    const myList = await api.call("GET", "/api/v1/webhooks");
    expect(myList.body.items.map((webhook: { id: string }) => webhook.id)).not.to.include(theirs.body.id);
    // Still there for its owner.
    expect((await api.call("GET", `/api/v1/webhooks/${mine.body.id}`)).status).to.equal(200);
    expect((await api.call("GET", "/api/v1/webhooks", undefined, { "x-api-key": "wrong" })).status).to.equal(401);
    expect(
      (await api.call("POST", "/api/v1/webhooks", { url: PUBLIC_URL, events: ["operation.mined"] }, { "x-api-key": "" })).status,
    ).to.equal(401);
  });

  it("answers 400 naming `events` for unknown or missing event names, and `url` for bad URLs", async function () {
    const unknown = await api.call("POST", "/api/v1/webhooks", { url: PUBLIC_URL, events: ["operation.mined", "operation.exploded"] });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error.field).to.match(/^events/);
    expect(unknown.body.error.message).to.include("operation.mined");
    for (const events of [[], undefined, "operation.mined", [1]]) {
      const answer = await api.call("POST", "/api/v1/webhooks", { url: PUBLIC_URL, ...(events !== undefined ? { events } : {}) });
      expect(answer.status, JSON.stringify(events)).to.equal(400);
      expect(answer.body.error.field).to.match(/^events/);
    }
    for (const url of [
      "not a url",
      "ftp://93.184.215.14/x",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "https://user:pw@93.184.215.14/",
      "x".repeat(3000),
    ]) {
      const answer = await api.call("POST", "/api/v1/webhooks", { url, events: ["operation.mined"] });
      expect(answer.status, url).to.equal(400);
      expect(answer.body.error.field, url).to.equal("url");
    }
    const extra = await api.call("POST", "/api/v1/webhooks", { url: PUBLIC_URL, events: ["operation.mined"], secret: "mine" });
    expect(extra.status).to.equal(400);
  });

  it("refuses private, loopback, link-local, unique-local and metadata targets (IPv4 and IPv6, by name too), naming `url` and the rule", async function () {
    const refused = [
      "http://127.0.0.1:8080/hooks",
      "http://localhost/hooks",
      "http://10.1.2.3/",
      "http://172.16.0.1/",
      "http://192.168.1.1/",
      "http://100.64.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://0.0.0.0/",
      "http://[::1]/",
      "http://[::]/",
      "http://[fd00:ec2::254]/",
      "http://[fc00::1]/",
      "http://[fe80::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://2130706433/",
      "http://0x7f.1/",
      "https://224.0.0.1/",
    ];
    for (const url of refused) {
      const answer = await api.call("POST", "/api/v1/webhooks", { url, events: ["operation.mined"] });
      expect(answer.status, url).to.equal(400);
      expect(answer.body.error.code).to.equal("INVALID_ARGUMENT");
      expect(answer.body.error.field).to.equal("url");
      expect(answer.body.error.message, url).to.include("TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS");
    }
    const listed = await api.call("GET", "/api/v1/webhooks");
    expect(listed.body.items.every((webhook: { url: string }) => webhook.url.startsWith("https://93.184.215.14"))).to.equal(true);
  });

  it("answers hostile input in bulk with 4xx, never 5xx", async function () {
    const bodies: unknown[] = [
      null,
      [],
      "text",
      42,
      { url: null, events: null },
      { url: 1, events: {} },
      { url: PUBLIC_URL, events: Array(100).fill("operation.mined") },
      { url: "http://\u0000/", events: ["operation.mined"] },
      { url: "http://[::1", events: ["operation.mined"] },
      { url: PUBLIC_URL, events: ["operation.mined\u0000"] },
      { url: PUBLIC_URL, events: ["__proto__"], __proto__: { polluted: true } },
    ];
    for (const body of bodies) {
      const answer = await api.call("POST", "/api/v1/webhooks", body);
      expect(answer.status, JSON.stringify(body)).to.be.within(400, 499);
    }
    for (const id of ["x", "%00", "..%2f..", "00000000-0000-0000-0000-000000000000", "'; drop table webhooks; --", "a".repeat(5000)]) {
      for (const method of ["GET", "DELETE"]) {
        const answer = await api.call(method, `/api/v1/webhooks/${id}`);
        expect(answer.status, `${method} ${id}`).to.be.within(400, 499);
      }
      const deliveries = await api.call("GET", `/api/v1/webhooks/${id}/deliveries?limit=5&cursor=%00`);
      expect(deliveries.status).to.be.within(400, 499);
    }
    const created = await api.call("POST", "/api/v1/webhooks", { url: PUBLIC_URL, events: ["operation.dropped"] });
    for (const query of [
      "limit=0",
      "limit=101",
      "limit=x",
      "cursor=nope",
      `cursor=${Buffer.from('["1","\\u0000"]').toString("base64url")}`,
    ]) {
      const answer = await api.call("GET", `/api/v1/webhooks/${created.body.id}/deliveries?${query}`);
      expect(answer.status, query).to.equal(400);
    }
  });

  it("checks each address at connection time: a name that now resolves to a private address gets nothing (DNS rebinding)", async function () {
    const receiver = new WebhookReceiver("ok", { checkEvents: false });
    const url = await receiver.listen();
    try {
      const port = new URL(url).port;
      // A name resolved by a resolver of the test's: first public (as at registration), then loopback (at delivery).
      const answers = [[{ address: "93.184.215.14", family: 4 }], [{ address: "127.0.0.1", family: 4 }]];
      const guard = new TargetGuard(false, async () => answers.shift() ?? []);
      expect(await guard.checkRegistration(`http://hooks.example:${port}/hooks`)).to.equal(`http://hooks.example:${port}/hooks`);
      const outcome = await postEvent(`http://hooks.example:${port}/hooks`, "{}", {}, guard, 2_000);
      expect(outcome.status).to.equal(null);
      expect(outcome.error).to.match(/127\.0\.0\.1, which is a private or reserved address/);
      expect(receiver.received).to.have.length(0);
      // The same name allowed to a private address (the development setting) connects to the address the guard resolved.
      const allowing = new TargetGuard(true, async () => [{ address: "127.0.0.1", family: 4 }]);
      expect(await postEvent(`http://hooks.example:${port}/hooks`, "{}", {}, allowing, 2_000)).to.deep.equal({ status: 204 });
      expect(receiver.received).to.have.length(1);
      expect(receiver.received[0]!.headers.host).to.equal(`hooks.example:${port}`);
    } finally {
      await receiver.close();
    }
  });

  it("judges every IPv6 form that carries an IPv4 address as that address, at registration and at delivery", async function () {
    const carrying: Array<[string, string]> = [
      ["[64:ff9b::169.254.169.254]", "NAT64, well-known prefix"],
      ["[64:ff9b::a9fe:a9fe]", "NAT64, hex form"],
      ["[64:ff9b:1::10.0.0.1]", "NAT64, local-use prefix"],
      ["[::ffff:169.254.169.254]", "IPv4-mapped"],
      ["[::ffff:0:10.0.0.1]", "IPv4-translated"],
      ["[::127.0.0.1]", "IPv4-compatible"],
      ["[2002:a9fe:a9fe::1]", "6to4"],
      ["[2001:0:4136:e378:8000:63bf:f5ff:fffe]", "Teredo (client 10.0.0.1)"],
    ];
    const guard = new TargetGuard(false);
    for (const [host, form] of carrying) {
      const refused = await guard.checkRegistration(`http://${host}/hooks`).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect((refused as { field?: string })?.field, `${form}: ${host}`).to.equal("url");
      // A name that resolves to it is refused when a delivery connects.
      const rebinding = new TargetGuard(false, async () => [{ address: host.slice(1, -1), family: 6 }]);
      const delivery = await rebinding.resolve(new URL("http://hooks.example/")).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(delivery, `${form} at delivery`).to.be.instanceOf(RefusedTarget);
    }
    for (const host of ["[64:ff9b::808:808]", "[2002:808:808::1]", "[2001:4860:4860::8888]"])
      expect(isBlockedAddress(host.slice(1, -1)), `${host} carries a public address`).to.equal(false);
  });

  it("follows no redirect: a 3xx is an answer that is not 2xx", async function () {
    let hits = 0;
    const redirecting = createServer((request, response) => {
      hits += 1;
      response.writeHead(307, { location: "http://127.0.0.1:1/elsewhere" }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = redirecting.address() as AddressInfo;
      const outcome = await postEvent(`http://127.0.0.1:${port}/`, "{}", {}, new TargetGuard(true), 2_000);
      expect(outcome).to.deep.equal({ status: 307, error: "answered HTTP 307" });
      expect(hits).to.equal(1);
    } finally {
      redirecting.closeAllConnections();
      await new Promise<void>((resolve) => redirecting.close(() => resolve()));
    }
  });

  it("knows the blocked ranges, and keeps backoff within its full-jitter bound", function () {
    for (const address of ["127.0.0.1", "10.0.0.1", "169.254.169.254", "::1", "fd00:ec2::254", "::ffff:10.0.0.1", "fe80::1", "not-an-ip"])
      expect(isBlockedAddress(address), address).to.equal(true);
    for (const address of ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"]) expect(isBlockedAddress(address), address).to.equal(false);
    const settings = { firstBackoffMs: 100, maxBackoffMs: 1_000 };
    for (let attempt = 1; attempt <= 12; attempt++) {
      const bound = Math.min(1_000, 100 * 2 ** (attempt - 1));
      for (let sample = 0; sample < 50; sample++) expect(backoffMs(attempt, settings)).to.be.within(0, bound);
    }
  });

  it("documents every webhook route in /openapi.json", async function () {
    const document = await eventually(
      async () => (await fetch(`${api.baseUrl}/openapi.json`)).json(),
      (value) => value !== undefined,
    );
    expect(Object.keys(document.paths["/api/v1/webhooks"])).to.have.members(["get", "post"]);
    expect(Object.keys(document.paths["/api/v1/webhooks/{id}"])).to.have.members(["get", "delete"]);
    expect(document.paths["/api/v1/webhooks/{id}/deliveries"].get.responses).to.include.keys("200", "404");
    expect(TEST_API_KEY).to.be.a("string");
  });
});
