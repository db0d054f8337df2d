import type { RouteDefinition } from "../route.js";
import { burnRoute, pauseRoute } from "./admin.js";
import { clearChainFaultRoute, clearChainFaultsRoute, injectChainFaultRoute, listChainFaultsRoute } from "./faults.js";
import { faucetRoute, networksRoute, transactionRoute } from "./misc.js";
import { cancelRoute, speedUpRoute } from "./replacements.js";
import { getOperationRoute, launchTokenRoute, mintTokenRoute, tokenBalanceRoute } from "./tokens.js";
import { listOperationsRoute, listTokensRoute } from "./listings.js";
import { TOKEN_CALL_ROUTES } from "./token-calls.js";
import { upgradeTokenRoute } from "./upgrade.js";
import { getVerificationRoute, tokenVerificationRoute, verifyTokenRoute } from "./verification.js";
import { allowanceRoute, approveRoute, ownedTokensRoute, tokenInfoRoute, transferRoute } from "./transfers.js";
import {
  createWalletRoute,
  getWalletPolicyRoute,
  importWalletRoute,
  listHeldWalletsRoute,
  putWalletPolicyRoute,
  readBalanceRoute,
} from "./wallets.js";
import {
  createSubscriptionRoute,
  deleteSubscriptionRoute,
  getSubscriptionRoute,
  listChainEventsRoute,
  listSubscriptionsRoute,
} from "./subscriptions.js";
import { createWebhookRoute, deleteWebhookRoute, getWebhookRoute, listDeliveriesRoute, listWebhooksRoute } from "./webhooks.js";

/** Every versioned operation; each answers under /api/v1 and /v1. */
export const API_ROUTES: RouteDefinition[] = [
  createWalletRoute,
  importWalletRoute,
  listHeldWalletsRoute,
  putWalletPolicyRoute,
  getWalletPolicyRoute,
  readBalanceRoute,
  launchTokenRoute,
  listTokensRoute,
  listOperationsRoute,
  mintTokenRoute,
  getOperationRoute,
  speedUpRoute,
  cancelRoute,
  tokenBalanceRoute,
  tokenVerificationRoute,
  verifyTokenRoute,
  getVerificationRoute,
  transferRoute,
  approveRoute,
  burnRoute,
  pauseRoute,
  // Every write kind of domain/kinds/, each made from its description.
  ...TOKEN_CALL_ROUTES,
  upgradeTokenRoute,
  // Before GET /tokens/{contract}, which would take "allowance" for a contract.
  allowanceRoute,
  tokenInfoRoute,
  ownedTokensRoute,
  transactionRoute,
  faucetRoute,
  networksRoute,
  createWebhookRoute,
  listWebhooksRoute,
  getWebhookRoute,
  deleteWebhookRoute,
  listDeliveriesRoute,
  createSubscriptionRoute,
  listSubscriptionsRoute,
  getSubscriptionRoute,
  deleteSubscriptionRoute,
  listChainEventsRoute,
  injectChainFaultRoute,
  listChainFaultsRoute,
  clearChainFaultsRoute,
  clearChainFaultRoute,
];
