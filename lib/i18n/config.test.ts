/** How a request's language is chosen (lib/i18n/config.ts): the cookie, then Accept-Language by q, then English. */
import { describe, expect, it } from "vitest";
import { fromAcceptLanguage, intlLocale, localeOfRequest, matchLocale } from "@/lib/i18n/config";

const req = (h: Record<string, string>) => new Headers(h);

describe("locale negotiation", () => {
  it("reads Simplified Chinese and English tags", () => {
    expect(["zh", "zh-CN", "zh-cn", "zh-SG", "zh-Hans-CN"].map(matchLocale)).toEqual(["zh-CN", "zh-CN", "zh-CN", "zh-CN", "zh-CN"]);
    expect(["en", "en-US", "EN-gb"].map(matchLocale)).toEqual(["en", "en", "en"]);
    expect(["fr", "", "zhx", "z"].map(matchLocale)).toEqual([null, null, null, null]);
  });

  it("gives Traditional Chinese tags the Chinese catalogue (zh-CN), not English", () => {
    expect(["zh-TW", "zh-HK", "zh-MO", "zh-Hant", "zh-Hant-TW", "zh-hant-hk", " ZH-tw "].map(matchLocale)).toEqual(Array(7).fill("zh-CN"));
    // What Safari on a Traditional-Chinese system sends: the region tag alone.
    for (const header of ["zh-TW", "zh-HK", "zh-MO", "zh-Hant", "zh-Hant-TW", "zh-TW,en;q=0.5"]) expect(fromAcceptLanguage(header)).toBe("zh-CN");
    // The pages (the proxy) and the account's e-mail language (set at sign-up) read the request the same way.
    expect(localeOfRequest(req({ "accept-language": "zh-HK" }))).toBe("zh-CN");
    // The fan's own choice in the switcher still wins.
    expect(localeOfRequest(req({ cookie: "NEXT_LOCALE=en", "accept-language": "zh-TW" }))).toBe("en");
  });

  it("ranks Accept-Language by q and keeps header order on ties", () => {
    expect(fromAcceptLanguage("zh-CN,zh;q=0.9,en;q=0.8")).toBe("zh-CN");
    expect(fromAcceptLanguage("fr-FR,fr;q=0.9,zh;q=0.8,en;q=0.7")).toBe("zh-CN");
    expect(fromAcceptLanguage("en;q=0.5,zh-CN;q=0.9")).toBe("zh-CN");
    expect(fromAcceptLanguage("zh-CN;q=0,en")).toBe("en");
    expect(fromAcceptLanguage("zh-TW;q=0.1,en;q=0.9")).toBe("en");
    expect(fromAcceptLanguage("fr,de;q=0.5")).toBeNull();
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
