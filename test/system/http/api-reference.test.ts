import { expect } from "chai";
import type { Page, Request, Response } from "playwright-core";

import { WEBHOOK_EVENTS } from "../../../src/webhooks/events.js";
import { chromiumMissing, launchChromium, type HeadlessChromium } from "../../helpers/chromium.js";
import { startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";

interface Operation {
  method: string;
  path: string;
  operationId: string;
  summary: string;
}

/** What the page shows for each operation: Swagger UI's summary row. */
async function shownOperations(page: Page): Promise<Operation[]> {
  return page.$$eval(".opblock .opblock-summary", (rows) =>
    rows.map((row) => ({
      method: row.querySelector(".opblock-summary-method")?.textContent?.trim().toLowerCase() ?? "",
      path: row.querySelector(".opblock-summary-path")?.getAttribute("data-path") ?? "",
      operationId: row.querySelector(".opblock-summary-operation-id")?.textContent?.trim() ?? "",
      summary: row.querySelector(".opblock-summary-description")?.textContent?.trim() ?? "",
    })),
  );
}

const key = (operation: Operation) => `${operation.method} ${operation.path} ${operation.operationId}: ${operation.summary}`;

describe("HTTP service — /docs in a real headless browser", function () {
  let api: RunningServer;
  let browser: HeadlessChromium;
  let page: Page;
  const requests: Request[] = [];
  const responses: Response[] = [];
  const policyViolations: string[] = [];

  before(async function () {
    const missing = chromiumMissing();
    if (missing !== undefined) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    api = await startServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on("request", (request) => requests.push(request));
    page.on("response", (response) => responses.push(response));
    page.on("console", (message) => {
      if (/content security policy/i.test(message.text())) policyViolations.push(message.text());
    });
  });

  after(async function () {
    await browser?.close();
    await api?.stop();
  });

  it("loads with no request to any host but the service", async function () {
    const loaded = await page.goto(`${api.baseUrl}/docs`);
    expect(loaded?.status()).to.equal(200);
    await page.locator(".opblock").first().waitFor({ timeout: 30_000 });
    await page.waitForLoadState("networkidle");
    const origin = new URL(api.baseUrl).origin;
    const elsewhere = requests.map((request) => request.url()).filter((url) => !url.startsWith("data:") && new URL(url).origin !== origin);
    expect(elsewhere, "requests to other hosts").to.deep.equal([]);
    const paths = requests.map((request) => new URL(request.url()).pathname);
    expect(paths).to.include.members(["/docs", "/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css", "/openapi.json"]);
    const failed = responses.filter((response) => response.status() >= 400).map((response) => `${response.status()} ${response.url()}`);
    expect(failed, "failed loads").to.deep.equal([]);
  });

  it("lists every operation and webhook event of /openapi.json", async function () {
    const document = (await (await fetch(`${api.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; summary: string }>>;
      webhooks: Record<string, Record<string, { operationId: string; summary: string }>>;
    };
    expect(Object.keys(document.webhooks).sort()).to.deep.equal([...WEBHOOK_EVENTS].sort());
    const expected = [...Object.entries(document.paths), ...Object.entries(document.webhooks)].flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method,
        path,
        operationId: operation.operationId,
        summary: operation.summary,
      })),
    );
    expect(expected.length).to.be.greaterThan(5);
    const shown = await shownOperations(page);
    expect(shown.map(key).sort()).to.deep.equal(expected.map(key).sort());
  });

  it("creates a wallet with “Try it out” and its default body, authorized with an API key typed into the page", async function () {
    await page.locator("button.authorize").first().click();
    const headerScheme = page.locator(".auth-container").filter({ hasText: "x-api-key" });
    await headerScheme.locator("input").fill(TEST_API_KEY);
    await headerScheme.locator("button.authorize").click();
    await page.locator(".auth-btn-wrapper button.btn-done").first().click();

    // Grouped by resource: Swagger UI's element ids name the operation's tag.
    const operation = page.locator("#operations-wallets-createWallet");
    await operation.locator(".opblock-summary").click();
    await operation.locator("button.try-out__btn").click();
    // The body "Try it out" fills in is the document's first example, sent as is.
    const answered = page.waitForResponse(
      (response) => response.request().method() === "POST" && new URL(response.url()).pathname === "/api/v1/wallets",
    );
    await operation.locator("button.execute").click();
    const response = await answered;

    expect(response.request().headers()["x-api-key"]).to.equal(TEST_API_KEY);
    expect(JSON.parse(response.request().postData() ?? "null")).to.deep.equal({ chain: "ethereum", network: "sepolia" });
    expect(response.status(), await response.text()).to.equal(200);
    const wallet = (await response.json()) as { address: string; privateKey: string; chain: string; network: string };
    expect(wallet).to.include({ chain: "ethereum", network: "sepolia" });
    expect(wallet.address).to.match(/^0x[0-9a-fA-F]{40}$/);
    // The page shows the answer it received.
    const shownStatus = operation.locator(".live-responses-table tr.response .response-col_status").first();
    await shownStatus.waitFor();
    expect(await shownStatus.textContent()).to.include("200");
    expect(responses).to.include(response);
  });

  it("launches a token with “Try it out” and the default body, as documented (no 400)", async function () {
    const operation = page.locator("#operations-tokens-launchToken");
    await operation.locator(".opblock-summary").click();
    await operation.locator("button.try-out__btn").click();
    const answered = page.waitForResponse(
      (response) => response.request().method() === "POST" && new URL(response.url()).pathname === "/api/v1/tokens",
    );
    await operation.locator("button.execute").click();
    const response = await answered;
    expect(response.status(), await response.text()).to.equal(200);
    expect(await response.json()).to.include({ chain: "ethereum", network: "sepolia", type: "ERC20", status: "pending" });
  });

  it("runs under its content security policy, framed by nobody, and the API's answers are never cached", async function () {
    const page = responses.find((response) => new URL(response.url()).pathname === "/docs")!;
    const headers = await page.allHeaders();
    expect(headers["content-security-policy"]).to.include("frame-ancestors 'none'").and.to.include("script-src 'self'");
    expect(headers["x-frame-options"]).to.equal("DENY");
    expect(headers["x-content-type-options"]).to.equal("nosniff");
    expect(policyViolations, "what the policy refused while the page ran").to.deep.equal([]);
    const wallet = responses.find((response) => new URL(response.url()).pathname === "/api/v1/wallets")!;
    expect((await wallet.allHeaders())["cache-control"], "an answer carrying a private key").to.equal("no-store");
  });
});
