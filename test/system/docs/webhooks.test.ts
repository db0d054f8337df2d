import { describeWalkthrough } from "../../helpers/walkthrough-runner.js";

describeWalkthrough({
  file: "docs/webhooks.md",
  mustInclude: ["npx hardhat serve", "TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS=true", "/api/v1/webhooks", "receiver.mjs", "/deliveries"],
});
