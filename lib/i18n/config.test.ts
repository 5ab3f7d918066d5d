/** How a request's language is chosen (lib/i18n/config.ts): the cookie, then Accept-Language by q, then English. */
import { describe, expect, it } from "vitest";
import { fromAcceptLanguage, intlLocale, localeOfRequest, matchLocale } from "@/lib/i18n/config";

const req = (h: Record<string, string>) => new Headers(h);

describe("locale negotiation", () => {
  it("reads Simplified Chinese and English tags, not Traditional Chinese", () => {
    expect(["zh", "zh-CN", "zh-cn", "zh-SG", "zh-Hans-CN"].map(matchLocale)).toEqual(["zh-CN", "zh-CN", "zh-CN", "zh-CN", "zh-CN"]);
    expect(["en", "en-US", "EN-gb"].map(matchLocale)).toEqual(["en", "en", "en"]);
    expect(["zh-TW", "zh-HK", "zh-Hant", "fr", ""].map(matchLocale)).toEqual([null, null, null, null, null]);
  });

  it("ranks Accept-Language by q and keeps header order on ties", () => {
    expect(fromAcceptLanguage("zh-CN,zh;q=0.9,en;q=0.8")).toBe("zh-CN");
    expect(fromAcceptLanguage("fr-FR,fr;q=0.9,zh;q=0.8,en;q=0.7")).toBe("zh-CN");
    expect(fromAcceptLanguage("en;q=0.5,zh-CN;q=0.9")).toBe("zh-CN");
    expect(fromAcceptLanguage("zh-CN;q=0,en")).toBe("en");
    expect(fromAcceptLanguage("zh-TW,fr")).toBeNull();
    expect(fromAcceptLanguage("")).toBeNull();
    expect(fromAcceptLanguage("q=;;,,;")).toBeNull();
  });

  it("lets the switcher's cookie win over the browser, and ignores a cookie naming no locale", () => {
    expect(localeOfRequest(req({ cookie: "a=1; NEXT_LOCALE=zh-CN", "accept-language": "en-US" }))).toBe("zh-CN");
    expect(localeOfRequest(req({ cookie: "NEXT_LOCALE=en", "accept-language": "zh-CN" }))).toBe("en");
    expect(localeOfRequest(req({ cookie: "NEXT_LOCALE=xx", "accept-language": "zh-CN" }))).toBe("zh-CN");
    expect(localeOfRequest(req({ cookie: "NEXT_LOCALE=%", "accept-language": "zh-CN" }))).toBe("zh-CN");
    expect(localeOfRequest(req({ cookie: "NEXT_LOCALE=%E0%A4%A" }))).toBe("en");
    expect(localeOfRequest(req({ "accept-language": "de-DE" }))).toBe("en");
    expect(localeOfRequest(req({}))).toBe("en");
  });

  it("formats English the British way (24-hour) and Chinese as zh-CN", () => {
    expect(intlLocale("en")).toBe("en-GB");
    expect(intlLocale("zh-CN")).toBe("zh-CN");
  });
});
