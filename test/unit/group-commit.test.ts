import { expect } from "chai";

import { GroupCommit } from "../../src/store/group-commit.js";

describe("group commit: writes that arrive together are written together", function () {
  function recording(failMany = false) {
    const groups: number[][] = [];
    const writes = new GroupCommit<number>(
      async (item) => {
        if (item < 0) throw new Error(`refused ${item}`);
        groups.push([item]);
      },
      async (items) => {
        if (failMany || items.some((item) => item < 0)) throw new Error("the group was refused");
        groups.push(items);
      },
    );
    return { groups, writes };
  }

  it("writes items added in one turn as one group, and what arrives during that write as the next", async function () {
    const { groups, writes } = recording();
    const first = [1, 2, 3].map((item) => writes.add(item));
    // Added once the first group is being written: it waits for that write, then goes in one group of its own.
    await new Promise((resolve) => setImmediate(resolve));
    const second = [4, 5].map((item) => writes.add(item));
    await Promise.all([...first, ...second]);
    expect(groups).to.deep.equal([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it("writes a lone item by itself", async function () {
    const { groups, writes } = recording();
    await writes.add(7);
    expect(groups).to.deep.equal([[7]]);
  });

  it("when a group's write fails, writes its items one by one: a bad item fails alone", async function () {
    const { groups, writes } = recording();
    const outcomes = await Promise.allSettled([1, -2, 3].map((item) => writes.add(item)));
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).to.equal("refused -2");
    expect(groups).to.deep.equal([[1], [3]]);
  });
});
