import { expect } from "chai";

import { dedent } from "../../scripts/dedent-output.js";

// The package's JavaScript and declarations lose their indentation (scripts/dedent-output.ts, decision 0059): the code
// must stay the same program, line for line, and a literal's text must stay the same text.

describe("dedent of the built package's files", function () {
  it("removes the indentation before code, keeping every line where it was", function () {
    const source = ["export function f(a) {", "    if (a) {", "        return a + 1;", "    }", "\treturn 0;", "}", ""].join("\n");
    const slim = dedent(source, "f.js");
    expect(slim).to.equal(["export function f(a) {", "if (a) {", "return a + 1;", "}", "return 0;", "}", ""].join("\n"));
    expect(slim.split("\n")).to.have.length(source.split("\n").length);
  });

  it("keeps the text of template literals that span lines, with or without substitutions", function () {
    const source = [
      "const plain = `first",
      "    indented line`;",
      "const mixed = `a ${plain}",
      "    second ${plain}",
      "        third`;",
      "    const after = 1;",
    ].join("\n");
    const slim = dedent(source, "t.js");
    expect(slim).to.equal(
      [
        "const plain = `first",
        "    indented line`;",
        "const mixed = `a ${plain}",
        "    second ${plain}",
        "        third`;",
        "const after = 1;",
      ].join("\n"),
    );
  });

  it("keeps a string continued on the next line with a backslash", function () {
    const source = ['const s = "one \\', '    two";', "    s;"].join("\n");
    expect(dedent(source, "s.js")).to.equal(['const s = "one \\', '    two";', "s;"].join("\n"));
  });

  it("dedents declarations, template literal types that span lines included as literals", function () {
    const source = ["export interface A {", "    /** @description x */", "    a: `x", "  y`;", "}"].join("\n");
    expect(dedent(source, "a.d.ts")).to.equal(["export interface A {", "/** @description x */", "a: `x", "  y`;", "}"].join("\n"));
  });
});
