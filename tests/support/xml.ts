import { SaxesParser } from "saxes";

export interface XmlElement {
  name: string;
  /** The element's own text (its children's not included). */
  text: string;
  children: XmlElement[];
}

/**
 * Parses a document with a conforming XML 1.0 parser, which throws on anything a feed reader may
 * refuse: a character XML forbids, a tag left open, an entity it does not know.
 */
export function parseXml(document: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const root: XmlElement = { name: "#document", text: "", children: [] };
  const open: XmlElement[] = [root];
  const current = () => open.at(-1) ?? root;
  parser.on("opentag", (tag) => {
    const element: XmlElement = { name: tag.local, text: "", children: [] };
    current().children.push(element);
    open.push(element);
  });
  parser.on("text", (text) => {
    current().text += text;
  });
  // A CDATA section is text as it stands (an RSS item's HTML).
  parser.on("cdata", (text) => {
    current().text += text;
  });
  parser.on("closetag", () => {
    open.pop();
  });
  parser.write(document).close();
  const [top] = root.children;
  if (!top) throw new Error("no root element");
  return top;
}

/** Every element of that name under `element`, in document order. */
export function elementsNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.flatMap((child) => [
    ...(child.name === name ? [child] : []),
    ...elementsNamed(child, name),
  ]);
}
