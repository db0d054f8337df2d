import { expect } from "chai";

import {
  FINAL_STATUSES,
  INITIAL_STATES,
  NOTICES,
  OPERATION_STATUSES,
  TRANSITIONS,
  OPERATION_EVENTS,
  eventOfChange,
  neverHeld,
  noticeOfChange,
  sourcesOf,
  transitionOf,
} from "../../src/domain/lifecycle.js";
import { allowedSources } from "../../src/store/transition-guard.js";

describe("the operation lifecycle table", function () {
  it("names each move once, between known states", function () {
    const moves = TRANSITIONS.map(({ from, to }) => `${from}→${to}`);
    expect(new Set(moves).size, "no move twice").to.equal(moves.length);
    for (const { from, to } of TRANSITIONS) expect(OPERATION_STATUSES).to.include.members([from, to]);
  });

  it("leaves a final state only by a reorg, and reaches every final state", function () {
    const leaving = TRANSITIONS.filter(({ from, to }) => FINAL_STATUSES.includes(from) && from !== to);
    expect(leaving.map(({ from, to, event }) => [from, to, event])).to.deep.equal([
      ["mined", "pending", "operation.reorged"],
      ["cancelled", "pending", "operation.reorged"],
    ]);
    for (const final of FINAL_STATUSES) expect(sourcesOf(final).length, final).to.be.greaterThan(0);
    expect(sourcesOf("signed"), "nothing goes back to signed").to.deep.equal([]);
  });

  it("is where the webhook events come from: each event is some move's, each move's event is the change's", function () {
    const emitted = new Set(
      [...TRANSITIONS.map(({ event }) => event), ...Object.values(INITIAL_STATES), ...NOTICES.map(({ event }) => event)].filter(
        (event) => event !== null,
      ),
    );
    expect([...emitted].sort()).to.deep.equal([...OPERATION_EVENTS].sort());
    for (const { from, to, event } of TRANSITIONS)
      expect(eventOfChange(from, to) ?? null, `${from}→${to}`).to.equal(from === to ? null : event);
    expect(eventOfChange(undefined, "signed"), "recording a signed launch is no event").to.equal(undefined);
    expect(eventOfChange(undefined, "mined"), "a record inserted mined (a bitcoin grant)").to.equal("operation.mined");
    expect(eventOfChange("failed", "mined"), "a move the table lacks is no event").to.equal(undefined);
  });

  it("has notices: events of a field set once, not of a move (operation.stuck)", function () {
    expect(noticeOfChange("stuck", null, { reason: "at the ceiling" })).to.equal("operation.stuck");
    expect(noticeOfChange("stuck", { reason: "before" }, { reason: "again" }), "once").to.equal(undefined);
    expect(noticeOfChange("stuck", { reason: "before" }, null), "cleared").to.equal(undefined);
    for (const { event } of NOTICES)
      expect(
        TRANSITIONS.some((transition) => transition.event === event),
        event,
      ).to.equal(false);
  });

  it("guards a store's write: the table's sources of the new status, narrowed by the writer's own", function () {
    expect(allowedSources({ status: "mined" })).to.have.members(["signed", "pending"]);
    expect(allowedSources({ status: "mined", from: ["signed"] })).to.deep.equal(["signed"]);
    expect(allowedSources({ status: "failed", from: ["mined"] }), "a move the table lacks matches no record").to.deep.equal([]);
    expect(allowedSources({ checkInMs: 5 }), "a change of fields only").to.equal(undefined);
    expect(allowedSources({ from: ["signed"], reason: "retry" })).to.deep.equal(["signed"]);
    expect(transitionOf("dropped", "pending")).to.equal(undefined);
  });

  it("tells a record no node ever held (signed → failed) from one a node held before it failed", function () {
    const at = "2026-12-07T00:00:00.000Z";
    const path = (...statuses: Array<(typeof OPERATION_STATUSES)[number]>) => ({
      status: statuses.at(-1)!,
      transitions: statuses.map((status) => ({ status, at, reason: status })),
    });
    expect(neverHeld(path("signed", "failed")), "refused at its broadcast").to.equal(true);
    expect(neverHeld(path("signed", "pending", "failed")), "reverted, or its nonce taken after the node had it").to.equal(false);
    expect(neverHeld(path("signed", "dropped")), "dropped").to.equal(false);
    expect(neverHeld(path("signed")), "still signed").to.equal(false);
    expect(neverHeld(path("signed", "pending", "mined", "pending", "failed")), "reorged, then failed").to.equal(false);
  });
});
