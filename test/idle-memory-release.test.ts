import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { constants, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { expect } from "chai";

import { releaseMemoryWhenIdle, type IdleMemoryRelease } from "../src/hardhat/tasks/support/idle-memory-release.js";

/** Major collections as Node reports them (a release runs at least one). */
function majorCollections(): { count: () => number; stop: () => void } {
  let count = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { detail?: { kind: number; flags: number } })[]) {
      if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) count++;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return { count: () => count, stop: () => observer.disconnect() };
}

async function until(condition: () => boolean, deadlineMs: number, what: string): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("serve gives idle heap memory back", function () {
  let http: Server;
  let base: string;
  let release: IdleMemoryRelease | undefined;
  let finishSlow: (() => void) | undefined;
  let gcs: ReturnType<typeof majorCollections>;

  beforeEach(async function () {
    http = createServer((request, response) => {
      if (request.url === "/slow") finishSlow = () => response.end("slow");
      else response.end("ok");
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    gcs = majorCollections();
  });

  afterEach(async function () {
    release?.stop();
    gcs.stop();
    finishSlow?.();
    await new Promise((resolve) => http.close(resolve));
  });

  it("collects once after start-up, and again only after requests, never while one is in flight", async function () {
    release = releaseMemoryWhenIdle(http, 300);
    const r = release;
    await until(() => r.releases === 1, 5_000, "one collection after the start-up's idle period");
    await until(() => gcs.count() >= 1, 5_000, "V8 reported the major collection");

    const slow = fetch(`${base}/slow`).then((response) => response.text());
    await until(() => finishSlow !== undefined, 5_000, "the slow request arrived");
    // Three idle periods with a request in flight: no collection.
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(r.releases).to.equal(1);

    finishSlow!();
    finishSlow = undefined;
    expect(await slow).to.equal("slow");
    const before = gcs.count();
    await until(() => r.releases === 2, 5_000, "a collection once the request finished and the server idled");
    await until(() => gcs.count() > before, 5_000, "V8 reported the major collection");
    // Idle without requests: nothing more to give back, no further collections.
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(r.releases).to.equal(2);
  });

  it("stops when told", async function () {
    release = releaseMemoryWhenIdle(http, 300);
    release.stop();
    expect(await (await fetch(`${base}/`)).text()).to.equal("ok");
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(release.releases).to.equal(0);
  });
});
