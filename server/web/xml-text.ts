/** U+1FFFE, U+1FFFF, … U+10FFFE, U+10FFFF: the last two code points of each plane above the first. */
const PLANE_ENDS = Array.from({ length: 16 }, (_, index) => {
  const plane = (index + 1).toString(16);
  return `\\u{${plane}FFFE}\\u{${plane}FFFF}`;
}).join("");

/**
 * What XML 1.0 forbids (C0 controls but tab and line ends, lone surrogates, U+FFFE, U+FFFF) and
 * what it discourages (DEL and the C1 controls but U+0085, the noncharacters U+FDD0-U+FDEF and
 * U+nFFFE, U+nFFFF). One forbidden character anywhere makes a conforming reader refuse the whole
 * document, and a title may hold anything its author pasted.
 */
const NOT_FOR_XML = new RegExp(
  `[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u0084\\u0086-\\u009F\\uD800-\\uDFFF\\uFDD0-\\uFDEF\\uFFFE\\uFFFF${PLANE_ENDS}]`,
  "gu",
);

/** Text without the characters an XML document must not (or should not) hold. */
export const xmlSafe = (text: string) => text.replace(NOT_FOR_XML, "");

/** Text as XML character data or an attribute value: markup escaped, unfit characters dropped. */
export const xmlText = (text: string) =>
  xmlSafe(text).replace(/[<>&'"]/g, (c) => `&#${String(c.codePointAt(0))};`);

/**
 * Text as a CDATA section (a feed item's HTML as readers expect it): its one forbidden sequence,
 * `]]>`, split across two sections, and characters XML cannot hold left out.
 */
export const cdata = (text: string) =>
  `<![CDATA[${xmlSafe(text).replaceAll("]]>", "]]]]><![CDATA[>")}]]>`;
