import { describeWalkthrough } from "../../helpers/walkthrough-runner.js";

describeWalkthrough({
  file: "docs/notifications.md",
  section: "Walk-through",
  mustInclude: ["/subscriptions", '"address":"', "/events", "json .privateKey"],
});
