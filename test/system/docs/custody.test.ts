import { describeWalkthrough } from "../../helpers/walkthrough-runner.js";

describeWalkthrough({
  file: "docs/custody.md",
  section: "Walk-through",
  mustInclude: [
    'TOKEN_SERVICE_KEYSTORE_PASSPHRASE="correct horse battery staple 42" npx hardhat serve',
    '"custody":"service"',
    "/policy",
    "allowedRecipients",
    "/wallets/held",
  ],
});
