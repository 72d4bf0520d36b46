import { describe, expect, it } from "vitest";
import { contentMessages, imageFileError, imageRefusalOf } from "../../contract/content.js";
import { BODY_IMAGE_MAX_BYTES } from "../../contract/limits.js";

// Issue 32: an image refused for a body names its file and the rule it broke.
describe("imageRefusalOf", () => {
  it("names the file and the limit of a file too large", () => {
    const big = { name: "holiday.png", size: BODY_IMAGE_MAX_BYTES + 1 };
    const message = imageFileError(big, BODY_IMAGE_MAX_BYTES) ?? "";
    expect(imageRefusalOf(big.name, message, BODY_IMAGE_MAX_BYTES)).toBe(
      "holiday.png: File size is too large (at most 7 MB)",
    );
  });

  it("names the file and the types of a file of another kind", () => {
    expect(
      imageRefusalOf("notes.txt", contentMessages.imageUnsupported, BODY_IMAGE_MAX_BYTES),
    ).toBe("notes.txt: Unsupported File Format (JPEG, PNG or GIF images only)");
  });

  it("names the file of any other refusal, with the server's words", () => {
    const limit = contentMessages.bodyImagesPerDay;
    expect(imageRefusalOf("a.png", limit, BODY_IMAGE_MAX_BYTES)).toBe(`a.png: ${limit}`);
  });
});
