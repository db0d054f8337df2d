import { expect } from "chai";

import { LruMap } from "../../src/domain/lru-map.js";

describe("LruMap (the bound of the service's in-memory caches)", function () {
  it("holds at most its capacity, letting the least recently used go first", function () {
    const map = new LruMap<string, number>(3);
    for (const [index, key] of ["a", "b", "c"].entries()) map.set(key, index);
    expect(map.get("a")).to.equal(0); // "a" is now the most recently used: "b" goes next.
    map.set("d", 3);
    expect(map.size).to.equal(3);
    expect(map.has("b")).to.equal(false);
    expect([map.get("a"), map.get("c"), map.get("d")]).to.deep.equal([0, 2, 3]);
  });

  it("keeps one entry per key when a key is set again", function () {
    const map = new LruMap<string, number>(2);
    map.set("a", 1).set("a", 2).set("b", 3);
    expect(map.size).to.equal(2);
    expect(map.get("a")).to.equal(2);
  });

  it("refuses a capacity below one", function () {
    expect(() => new LruMap(0)).to.throw(RangeError);
    expect(() => new LruMap(Number.POSITIVE_INFINITY)).to.throw(RangeError);
  });
});
