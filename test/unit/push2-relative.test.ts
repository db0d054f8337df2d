import { expect } from "chai";

import { fromPush2Relative, toPush2Relative } from "../../src/chains/evm/push2-relative.js";

describe("push2-relative: how the variant bundles store bytecode", function () {
  it("stores each PUSH2 operand as its distance from the instruction, modulo 2^16, and nothing else", function () {
    // PUSH2 0x0010 at 0; PUSH1 0x61 at 3 (a PUSH2 opcode as data: untouched); PUSH2 0x0002 at 5 (wraps below 0);
    // PUSH32 of 0x61 bytes at 8 (data); JUMPDEST; a PUSH2 cut short at the end.
    const code = `0x610010${"6061"}610002${"7f" + "61".repeat(32)}5b61ff`;
    const stored = toPush2Relative(code);
    expect(stored).to.equal(`0x610010${"6061"}61fffd${"7f" + "61".repeat(32)}5b61ff`);
    expect(fromPush2Relative(stored)).to.equal(code);
  });

  it("is the exact inverse on code of every length, whatever the bytes", function () {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    for (let length = 0; length < 300; length++) {
      const code = `0x${Buffer.from(Array.from({ length }, next)).toString("hex")}`;
      expect(fromPush2Relative(toPush2Relative(code)), code).to.equal(code);
    }
  });
});
