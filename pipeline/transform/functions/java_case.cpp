// Java's case mappings on ICU's Unicode data. Uppercasing at Locale.ROOT has no context, so ICU's
// root mapping is Java's. Lowercasing is Java's own: every code point by its simple mapping
// except 'İ' (full mapping) and 'Σ', whose final form Java decides by word boundaries
// (java.lang.ConditionalSpecialCasing.isFinalCased with java.text.BreakIterator's word rules)
// instead of Unicode's Final_Sigma context; ICU's lowercasing would differ, e.g. for "ΑΣ-ΒΑ".
#include "pipeline/transform/functions/java_case.h"

#include <unicode/bytestream.h>
#include <unicode/casemap.h>
#include <unicode/uchar.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "text/utf8.h"

namespace cdcd::transform {

namespace {

// java.lang.ConditionalSpecialCasing.isCased: upper, lower and title case letters, and a list of
// Other_Lowercase/Other_Uppercase ranges.
bool java_cased(std::int32_t c) {
    auto t = u_charType(c);
    if (t == U_UPPERCASE_LETTER || t == U_LOWERCASE_LETTER || t == U_TITLECASE_LETTER) return true;
    return (c >= 0x02B0 && c <= 0x02B8) || (c >= 0x02C0 && c <= 0x02C1) ||
           (c >= 0x02E0 && c <= 0x02E4) || c == 0x0345 || c == 0x037A ||
           (c >= 0x1D2C && c <= 0x1D61) || (c >= 0x2160 && c <= 0x217F) ||
           (c >= 0x24B6 && c <= 0x24E9);
}

// The character classes of the JDK's word BreakIterator rules (sun.text.resources.
// BreakIteratorRules, "WordBreakRules") that decide where a word around a 'Σ' ends.
enum Kind : std::uint8_t { kOther, kLetter, kDigit, kMark };
enum Flag : std::uint8_t { kMidWord = 1, kMidNum = 2, kPreNum = 4, kPostNum = 8, kDanda = 16 };

struct Item {
    std::size_t at;  // byte offset
    Kind kind;
    std::uint8_t flags;
    bool cased;
};

bool cjk_excluded(std::int32_t c) {
    // <kanji>, <kata>, <hira> and <cjk-diacrit>: letters that do not make words.
    return c == 0x3005 || (c >= 0x4E00 && c <= 0x9FA5) || (c >= 0xF900 && c <= 0xFA2D) ||
           (c >= 0x30A1 && c <= 0x30FA) || c == 0x30FD || c == 0x30FE ||
           (c >= 0x3041 && c <= 0x3094) || c == 0x309D || c == 0x309E ||
           (c >= 0x3099 && c <= 0x309C) || c == 0x30FB || c == 0x30FC;
}

// Classifies c; returns false for format characters (Cf), which the rules ignore, but for the
// soft hyphen, which they list as mid-word punctuation.
bool classify(std::int32_t c, Item& it) {
    it.kind = kOther;
    it.flags = 0;
    it.cased = false;
    if (c < 0) return true;
    auto t = u_charType(c);
    if (t == U_FORMAT_CHAR && c != 0x00AD) return false;  // the soft hyphen is mid-word
    it.cased = java_cased(c);
    switch (t) {
        case U_UPPERCASE_LETTER:
        case U_LOWERCASE_LETTER:
        case U_TITLECASE_LETTER:
        case U_MODIFIER_LETTER:
        case U_OTHER_LETTER:
        case U_COMBINING_SPACING_MARK:
            if (!cjk_excluded(c)) it.kind = kLetter;
            break;
        case U_NON_SPACING_MARK:
        case U_ENCLOSING_MARK:
            it.kind = kMark;
            break;
        case U_DECIMAL_DIGIT_NUMBER:
        case U_LETTER_NUMBER:
        case U_OTHER_NUMBER:
            it.kind = kDigit;
            break;
        case U_DASH_PUNCTUATION:
        case U_CONNECTOR_PUNCTUATION:
            it.flags |= kMidWord;
            break;
        case U_CURRENCY_SYMBOL:
            if (c != 0xA2) it.flags |= kPreNum;
            break;
        default:
            break;
    }
    switch (c) {
        case '"':
        case '\'':
            it.flags |= kMidWord | kMidNum;
            break;
        case '.':
            it.flags |= kMidWord | kMidNum | kPreNum;
            break;
        case 0x00AD:
        case 0x2027:
            it.flags |= kMidWord;
            break;
        case ',':
        case 0x066B:
            it.flags |= kMidNum;
            break;
        case '#':
            it.flags |= kPreNum;
            break;
        case '%':
        case '&':
        case 0xA2:
        case 0x066A:
        case 0x2030:
        case 0x2031:
            it.flags |= kPostNum;
            break;
        case 0x0964:
        case 0x0965:
            it.flags |= kDanda;
            break;
        default:
            break;
    }
    return true;
}

// The words of s as the JDK's word BreakIterator finds them, for the 'Σ's of s: built on the
// first one, so text without one pays nothing.
class Words {
  public:
    explicit Words(std::string_view s) {
        for (std::size_t i = 0, len = 1; i < s.size(); i += len) {
            Item it{i, kOther, 0, false};
            if (classify(utf8::decode(s, i, len), it)) items_.push_back(it);
        }
        segment_.resize(items_.size());
        int id = 0;
        for (std::size_t i = 0; i < items_.size(); ++id) {
            std::size_t end = segment_end(i);
            std::fill(segment_.begin() + static_cast<std::ptrdiff_t>(i),
                      segment_.begin() + static_cast<std::ptrdiff_t>(end), id);
            i = end;
        }
    }

    // isFinalCased for the 'Σ' at byte offset at: a cased character before it in its word, and
    // none after it.
    bool final_sigma(std::size_t at) const {
        auto pos = std::lower_bound(items_.begin(), items_.end(), at,
                                    [](const Item& it, std::size_t a) { return it.at < a; });
        auto k = static_cast<std::size_t>(pos - items_.begin());
        bool before = false;
        for (std::size_t j = k; j > 0 && segment_[j - 1] == segment_[k]; --j) {
            if (items_[j - 1].cased) {
                before = true;
                break;
            }
        }
        if (!before) return false;
        for (std::size_t j = k + 1; j < items_.size() && segment_[j] == segment_[k]; ++j) {
            if (items_[j].cased) return false;
        }
        return true;
    }

  private:
    // The end of the segment starting at item i: a run of letters and digits (with the marks
    // after them), single mid-word punctuation between letters and mid-number punctuation between
    // digits, an optional danda after letters and number suffix after digits, and a leading
    // number prefix before a digit; anything else is a segment alone.
    std::size_t segment_end(std::size_t i) const {
        const std::size_t n = items_.size();
        auto kind = [&](std::size_t j) { return j < n ? items_[j].kind : kOther; };
        if ((items_[i].flags & kPreNum) && kind(i + 1) == kDigit) ++i;
        Kind base = items_[i].kind;
        if (base != kLetter && base != kDigit) return i + 1;
        ++i;
        while (true) {
            while (kind(i) == kMark) ++i;
            Kind k = kind(i);
            if (k == kLetter || k == kDigit) {
                base = k;
                ++i;
                continue;
            }
            if (i >= n) return i;
            std::uint8_t f = items_[i].flags;
            std::uint8_t mid = base == kLetter ? kMidWord : kMidNum;
            if ((f & mid) && kind(i + 1) == base) {
                i += 2;
                continue;
            }
            if (base == kLetter && (f & kDanda)) {
                ++i;
                if (kind(i) != kDigit) return i;
                continue;
            }
            if (base == kDigit && (f & kPostNum)) return i + 1;
            return i;
        }
    }

    std::vector<Item> items_;
    std::vector<int> segment_;
};

}  // namespace

std::size_t java_to_upper(std::string_view s, char* out) {
    icu::CheckedArrayByteSink sink(out, static_cast<std::int32_t>(java_case_capacity(s.size())));
    UErrorCode err = U_ZERO_ERROR;
    // "": the root locale (nullptr would be the process's default locale).
    icu::CaseMap::utf8ToUpper(
        "", 0, icu::StringPiece(s.data(), static_cast<std::int32_t>(s.size())), sink, nullptr, err);
    if (U_FAILURE(err) || sink.Overflowed()) {  // not expected: the capacity covers every mapping
        std::memcpy(out, s.data(), s.size());
        return s.size();
    }
    return static_cast<std::size_t>(sink.NumberOfBytesWritten());
}

std::size_t java_to_lower(std::string_view s, char* out) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    std::optional<Words> words;  // made at the first 'Σ'
    std::size_t o = 0;
    for (std::size_t i = 0, len = 1; i < n; i += len) {
        unsigned char b = p[i];
        if (b < 0x80) {
            out[o++] = static_cast<char>(b + ((b >= 'A' && b <= 'Z') ? 32 : 0));
            len = 1;
            continue;
        }
        std::int32_t c = utf8::decode(s, i, len);
        if (c < 0) {
            out[o++] = static_cast<char>(b);
        } else if (c == 0x0130) {  // 'İ': "i̇", the only unconditional full lowercase mapping
            out[o++] = 'i';
            o += utf8::encode(0x0307, out + o);
        } else if (c == 0x03A3) {
            if (!words) words.emplace(s);
            o += utf8::encode(words->final_sigma(i) ? 0x03C2 : 0x03C3, out + o);
        } else {
            o += utf8::encode(u_tolower(c), out + o);
        }
    }
    return o;
}

}  // namespace cdcd::transform
