import { describe, expect, it } from "vitest";
import { cdata, xmlText } from "../../server/web/xml-text.js";
import { parseXml } from "../support/xml.js";

describe("xmlText", () => {
  it("drops what XML forbids or discourages, and nothing else", () => {
    const unfit = [
      "\u0000\u0008\u000B\u000C\u000E\u001F",
      "\uDFFF\uD800",
      "\u007F\u0084\u0086\u009F",
      "\uFDD0\uFDEF\uFFFE\uFFFF",
      "\u{1FFFE}\u{1FFFF}\u{AFFFE}\u{10FFFE}\u{10FFFF}",
    ].join("");
    const fit = "tab\there\nline\r\u0085 café 😀 \u{1FFFD} \u{20000} \uFFFD";
    expect(xmlText(`${unfit}${fit}${unfit}`)).toBe(fit);
    expect(() => parseXml(`<t>${xmlText(`a${unfit}b`)}</t>`)).not.toThrow();
  });

  it("escapes markup, and keeps the surrogate pairs it must not split", () => {
    expect(xmlText(`<a href="x">&'</a>`)).toBe(
      "&#60;a href=&#34;x&#34;&#62;&#38;&#39;&#60;/a&#62;",
    );
    expect(xmlText("\uD83D\uDE00 \uD83D")).toBe("😀 ");
  });
});

describe("cdata", () => {
  it("reads back as the text it holds, a CDATA end inside it included", () => {
    for (const text of ["a]]>b", "]]>", "<p>x</p>]]>]]>", "plain"]) {
      expect(parseXml(`<t>${cdata(text)}</t>`).text).toBe(text);
    }
  });
});
