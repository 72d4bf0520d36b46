import { describe, expect, it } from "vitest";
import { withAbsoluteAddresses } from "../../core/posts/body.js";

describe("withAbsoluteAddresses", () => {
  const base = "https://blog.example";

  it("makes this site's paths absolute in src, href and every srcset candidate", () => {
    const html =
      '<p><a href="/posts">x</a><img src="/uploads/a.webp" srcset="/uploads/a.webp 480w, /uploads/b.webp 960w"></p>';
    expect(withAbsoluteAddresses(html, base)).toBe(
      `<p><a href="${base}/posts">x</a><img src="${base}/uploads/a.webp" srcset="${base}/uploads/a.webp 480w, ${base}/uploads/b.webp 960w"></p>`,
    );
  });

  it("leaves other hosts, fragments and the text alone", () => {
    const html =
      '<p><a href="//other.example/a">x</a> <a href="#part">y</a> <code>a, /uploads/b</code></p>';
    expect(withAbsoluteAddresses(html, base)).toBe(html);
  });
});
