import type { Locator, Page } from "playwright-core";

/**
 * Layout measured in the page, not pixels compared (issue 20): the few DOM members these checks
 * read, typed here because the tests compile without the DOM library.
 */
interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
  height: number;
}
interface Element {
  tagName: string;
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
  childNodes: { length: number };
  ownerDocument: Document;
  getBoundingClientRect(): Rect;
  closest(selector: string): Element | null;
  contains(other: Element): boolean;
  scrollIntoView(options: { block: "start" | "center" | "end" }): void;
}
interface Document {
  documentElement: Element;
  defaultView: Window | null;
  querySelectorAll(selector: string): Iterable<Element>;
  elementFromPoint(x: number, y: number): Element | null;
  createRange(): {
    selectNodeContents(node: Element): void;
    getBoundingClientRect(): Rect;
    getClientRects(): Iterable<Rect>;
  };
}
interface Window {
  innerWidth: number;
  innerHeight: number;
  document: Document;
  getComputedStyle(element: Element): {
    overflowX: string;
    backgroundColor: string;
    lineHeight: string;
    listStyleType: string;
    borderTopWidth: string;
  };
}

/** The two screens of issue 20: a laptop and a phone. */
export const SCREENS = [
  { name: "desktop", size: { width: 1280, height: 800 } },
  { name: "phone", size: { width: 390, height: 844 } },
] as const;

/**
 * What sticks out: the page wider than the screen, and any box in the main content whose content
 * is wider than the box (clipped, as a card does, or scrolled sideways, as a table's frame does).
 */
export function overflowsOf(page: Page) {
  return page.evaluate(() => {
    const view = globalThis as unknown as Window;
    const found: string[] = [];
    const { scrollWidth } = view.document.documentElement;
    if (scrollWidth > view.innerWidth) {
      found.push(`page ${String(scrollWidth)} px wide on a ${String(view.innerWidth)} px screen`);
    }
    for (const element of view.document.querySelectorAll("main *")) {
      // Visible overflow shows in the page's width; a 1 px box is text kept for screen readers.
      if (view.getComputedStyle(element).overflowX === "visible" || element.clientWidth <= 1) {
        continue;
      }
      if (element.scrollWidth > element.clientWidth + 1) {
        const text = (element.textContent ?? "").trim().slice(0, 40);
        found.push(
          `<${element.tagName.toLowerCase()}> "${text}": ${String(element.scrollWidth)} px in ${String(element.clientWidth)} px`,
        );
      }
    }
    return found;
  });
}

/** How far a box's content runs past its right edge (0 when it fits). */
export const overflowOf = (locator: Locator) =>
  locator.evaluate((node) => {
    const element = node as unknown as Element;
    return Math.max(0, element.scrollWidth - element.clientWidth);
  });

/** The painted background of each element, as the browser computed it. */
export const backgrounds = (locator: Locator) =>
  locator.evaluateAll((nodes) =>
    nodes.map((node) => {
      const element = node as unknown as Element;
      return element.ownerDocument.defaultView?.getComputedStyle(element).backgroundColor ?? "";
    }),
  );

/** Red dominates: the danger colour, whatever shade a theme gives it. */
export function isRed(color: string | undefined) {
  const [r = 0, g = 0, b = 0] = (color?.match(/\d+/g) ?? []).map(Number);
  return r > 120 && r > 2 * g && r > 2 * b;
}

/** For each control: "fits" when it is one line high and inside its table cell, else why not. */
export const cellFits = (controls: Locator) =>
  controls.evaluateAll((nodes) =>
    nodes.map((node) => {
      const control = node as unknown as Element;
      const view = control.ownerDocument.defaultView;
      const cell = control.closest("td");
      const name = (control.textContent ?? "").trim();
      if (!view || !cell) return `${name}: not in a cell`;
      const box = control.getBoundingClientRect();
      const inCell = cell.getBoundingClientRect();
      if (box.height >= 2 * parseFloat(view.getComputedStyle(control).lineHeight)) {
        return `${name}: wraps`;
      }
      if (box.left < inCell.left - 0.5 || box.right > inCell.right + 0.5) {
        return `${name}: leaves its cell`;
      }
      return "fits";
    }),
  );

/** Where the text of each element starts: its letters (a centred label's box starts further left). */
export const textLefts = (locator: Locator) =>
  locator.evaluateAll((nodes) =>
    nodes.map((node) => {
      const element = node as unknown as Element;
      if (element.childNodes.length === 0) return Math.round(element.getBoundingClientRect().left);
      const range = element.ownerDocument.createRange();
      range.selectNodeContents(element);
      return Math.round(range.getBoundingClientRect().left);
    }),
  );

/** How a control is drawn: its list marker (none for a summary styled as a button) and border. */
export const controlLook = (locator: Locator) =>
  locator.evaluate((node) => {
    const element = node as unknown as Element;
    const style = element.ownerDocument.defaultView?.getComputedStyle(element);
    return { marker: style?.listStyleType, border: style?.borderTopWidth };
  });

/** For each element: "ok" when it lies within the screen's width and is at most `maxHeight` high. */
export const withinScreen = (locator: Locator, maxHeight: number) =>
  locator.evaluateAll(
    (nodes, limit) =>
      nodes.map((node) => {
        const element = node as unknown as Element;
        const box = element.getBoundingClientRect();
        const width = element.ownerDocument.defaultView?.innerWidth ?? 0;
        return box.left >= 0 && box.right <= width && box.height <= limit
          ? "ok"
          : `${(element.textContent ?? "").trim()}: ${JSON.stringify(box)}`;
      }),
    maxHeight,
  );

/** Scrolls the page until the element's top is at the window's top (under a sticky header). */
export const scrollToTopOf = (locator: Locator) =>
  locator.evaluate((node) => {
    (node as unknown as Element).scrollIntoView({ block: "start" });
  });

/**
 * Whether the element is in the window and seen, not under something else (a sticky header): what
 * is at its left middle is the element or inside it.
 */
export const uncovered = (locator: Locator) =>
  locator.evaluate((node) => {
    const element = node as unknown as Element;
    const { ownerDocument: document } = element;
    const box = element.getBoundingClientRect();
    const seen = document.elementFromPoint(box.left + 2, box.top + box.height / 2);
    const height = document.defaultView?.innerHeight ?? 0;
    return seen !== null && element.contains(seen) && box.top >= 0 && box.bottom <= height;
  });

/** For each element, how many lines its text takes (the distinct tops of its text's boxes). */
export const textLines = (locator: Locator) =>
  locator.evaluateAll((nodes) =>
    nodes.map((node) => {
      const element = node as unknown as Element;
      const range = element.ownerDocument.createRange();
      range.selectNodeContents(element);
      return new Set([...range.getClientRects()].map((box) => Math.round(box.top))).size;
    }),
  );
