// SPDX-License-Identifier: Apache-2.0
#pragma once

// Names that mix scripts to look like other names: `pаypal.com` with a
// Cyrillic а, `/etc/passwοrd` with a Greek ο, `аррӏе.com` whose first label
// is Cyrillic throughout. Unicode TR39 ("Unicode Security Mechanisms") §5
// defines the checks; ICU's spoof checker (uspoof) implements them with
// Unicode's own script-extension and confusable data, so the rules follow
// each Unicode release with Debian's ICU instead of with tables of ours.
//
// A name is a run of letters, marks, digits and the joiners `.`, `-` and
// `_` (a host, a file name, an identifier); spaces, `/`, `:`, `@` and other
// punctuation end it, so a URL's host, an email's domain and each segment
// of a path are names of their own. A name is suspicious when
//  - one of its labels (the runs between joiners) fails TR39's "highly
//    restrictive" level (§5.2): its letters come from more than one script,
//    unless Latin with Han and Hiragana/Katakana, Bopomofo or Hangul, as
//    Chinese, Japanese and Korean are written; or it mixes the digits of
//    two numbering systems. "Moderately restrictive" would let Latin mix
//    with Devanagari, so `g००gle` with Devanagari zeros would pass; or
//  - a label with no Latin letter in a name that has Latin letters is a
//    whole-script look-alike of Latin (its TR39 skeleton is ASCII): the
//    Cyrillic `аррӏе` of `аррӏе.com`.
// A name with ASCII letters or digits is also suspicious where it holds a
// compatibility form of them (UAX 15's NFKC maps it to ASCII): the
// mathematical bold 𝐩 of `𝐩aypal`, a fullwidth ｐ, the ligature ﬁ, the long
// s ſ; ª and º, written beside digits as ordinals, are not.
//
// Words of one script apart (a Russian sentence, `λόγος.txt`, Japanese
// with Latin) are not. A lone word spelled wholly in look-alike letters
// with no Latin next to it (`ехес`) is not flagged: Russian prose is made of
// such words.
//
// The marked characters are those outside the name's main script (Latin
// when the rest is a look-alike of Latin, otherwise the script most of its
// letters are in) and outside the scripts TR39 lets that script be written
// with.

#include "common/json.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace holdpoint {

// One marked code point: `at` counts code points from the start of the
// text (or of the name, in a MixedScriptName).
struct ScriptMark
{
    std::size_t at = 0;
    char32_t codePoint = 0;
    std::string script; // ICU's long name, "Cyrillic"
    // For a compatibility form of ASCII letters or digits (𝐩, ｐ, ﬁ, ſ):
    // what it stands for under NFKC, "p"; empty for a letter of another script.
    std::string formOf;
};

// A suspicious name and its marked code points.
struct MixedScriptName
{
    std::string name; // UTF-8, exactly as in the text
    std::vector<ScriptMark> marks;
};

// The marks of every suspicious name in `text`, in order.
std::vector<ScriptMark> mixedScriptMarks(const std::u32string &text);

// The suspicious names of `utf8`.
std::vector<MixedScriptName> mixedScriptNames(std::string_view utf8);

// How a mark is shown to a person: ⟨а U+0430 CYRILLIC⟩, ⟨𝐩 U+1D429 FORM OF p⟩.
std::string scriptMarkText(const ScriptMark &mark);

// At most this many names go in a call's `mixed_script` list.
inline constexpr std::size_t kMaxMixedScriptNames = 64;

// The suspicious names of every string and object key in `value`, added to
// `out` (a JSON array, no name twice, at most kMaxMixedScriptNames) as the
// protocol's `mixed_script` entries:
// {"name": "pаypal.com", "marks": [{"at": 1, "char": "а",
//  "code_point": "U+0430", "script": "Cyrillic", "shown": "⟨а U+0430 CYRILLIC⟩"}]}
// and "form_of": "p" on the mark of a compatibility form.
void addMixedScriptJson(Json &out, const Json &value);

// For people: "look-alike names: p⟨а U+0430 CYRILLIC⟩ypal.com, …" with the
// first `max` names of a `mixed_script` list, marked as it says; empty when
// there are none.
std::string lookAlikeNamesLine(const Json &mixedScript, std::size_t max = 3);

} // namespace holdpoint
