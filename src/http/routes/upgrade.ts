import { invalidArgument } from "../../domain/errors.js";
import type { UpgradeRequest } from "../../domain/upgrades.js";
import { EXAMPLE_PAIR, EXAMPLE_TOKEN_CONTRACT } from "../examples.js";
import { defineRoute } from "../route.js";
import { WaitQuery } from "../schemas.js";
import { Upgrade, UpgradeAwaitingImplementation, UpgradeFields, UpgradeWrite } from "../upgrade-schemas.js";
import { parseWith } from "../validation.js";
import { errorResponses } from "./common.js";
import { signedByService } from "./admin.js";
import { isPrepare, notBoth, settle } from "./write-route.js";

// POST /tokens/upgrade (docs/decisions/0066-upgrade-write.md): not a write route like the others, because it may be two
// writes (the new implementation, then the upgrade), so it has no prepare and no signed-transaction form.

export const upgradeTokenRoute = defineRoute({
  method: "post",
  paths: ["/tokens/upgrade"],
  operationId: "upgradeToken",
  tag: "tokens",
  summary: "Upgrade a token you launched behind a proxy to the implementation of new options, checked by OpenZeppelin first",
  description:
    "For a token a launch of your API key deployed with `token.options.upgradeable`: compiles the current and the new implementation and runs OpenZeppelin's upgrade checks (`@openzeppelin/upgrades-core`: the new code upgrade-safe, the storage layout compatible, ERC-7201 namespaces included) before anything is signed; an unsafe upgrade is 422 `UPGRADE_UNSAFE` with `details.reasons`. The sender's right to upgrade is simulated too (422 `NOT_UPGRADER`). Then the new implementation is deployed through the CREATE2 factory at salt zero (skipped when its code is already there: every token upgraded to the same options shares it), waited for as `wait=mined` waits, and the proxy is upgraded: `upgradeToAndCall(implementation, 0x)` (UUPS) or the ProxyAdmin's `upgradeAndCall(proxy, implementation, 0x)` (transparent). No initializer runs. Two records, each one transaction; the answer is the upgrade's, with `implementation` and `previousImplementation`. If the implementation is not mined within the wait, 202 answers its record and no upgrade was signed: send the same request again (without the Idempotency-Key, or with a new one) to go on. Signed with `privateKey` or by a held wallet of your API key; no prepare, no `signedTransaction` (two transactions are signed in turn).",
  auth: true,
  idempotent: true,
  query: WaitQuery,
  body: UpgradeWrite.body,
  bodyExamples: {
    pausable: {
      summary: "A UUPS token launched burnable, upgraded to burnable and pausable",
      value: {
        ...EXAMPLE_PAIR,
        contractAddress: EXAMPLE_TOKEN_CONTRACT,
        options: { burnable: true, pausable: true, access: "ownable", upgradeable: "uups" },
        ...signedByService,
      },
    },
  },
  validateBody: (raw: unknown) => notBoth(parseWith(UpgradeFields, raw)),
  responses: {
    200: { description: "The upgrade, accepted by the node (or mined, with wait=mined)", schema: Upgrade },
    202: {
      description:
        "The upgrade signed and recorded, not yet confirmed (or wait=mined timed out); or the new implementation's deployment not mined within the wait (no upgrade signed: send the request again)",
      schema: Upgrade.or(UpgradeAwaitingImplementation),
    },
    ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429, 502, 503, 504),
  },
  async handle({ query, body, apiKeyId, operationId }, context) {
    const request = body as unknown as UpgradeRequest;
    // No key: the service signs for a held wallet of this API key; there is no prepare (two transactions in turn).
    if (isPrepare(request) && !(await context.service.custody.holds({ apiKeyId }, request.chain, request.network, request.sender))) {
      throw invalidArgument(
        "privateKey",
        "an upgrade needs privateKey, or a sender that is a held wallet of your API key: it may send two transactions (the implementation, then the upgrade), so it has no prepare",
      );
    }
    const outcome = await context.service.upgrades.upgrade(request, context.store, { apiKeyId, id: operationId }, context.waitTimeoutMs);
    if ("awaiting" in outcome) return { status: 202, body: outcome.awaiting };
    return settle(context, outcome.upgraded, (query as { wait?: string }).wait);
  },
});
