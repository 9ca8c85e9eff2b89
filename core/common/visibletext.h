// SPDX-License-Identifier: Apache-2.0
#pragma once

// Text from an agent as a person may be shown it. A call can hide what it
// does from the reviewer who approves it: a right-to-left override makes
// `report\u202Efdp.exe` read as "reportexe.pdf" (the "Trojan Source"
// attack, CVE-2021-42574), zero-width characters split `rm -rf` where the
// eye sees none, a Cyrillic `а` makes `pаypal.com` another host. Every
// surface that shows a call (the desktop, the reviewer page, holdpoint-ctl,
// notifications) shows such characters as a marked escape, ⟨U+202E⟩, and
// warns about the item. Only the display changes: what runs is the
// agent's text, byte for byte.

#include "common/json.h"

#include <QString>
#include <QStringView>

#include <string>
#include <string_view>

namespace holdpoint {

// What hides in a text, as flags.
enum HiddenText : unsigned
{
    // Characters that show as nothing, as something else, or change how
    // the rest reads: control characters other than tab and line feed,
    // format characters (Cf: bidi controls, zero-width characters), private
    // use (Co) and unassigned (Cn) code points, line and paragraph
    // separators, spaces other than U+0020, and the Hangul fillers.
    HiddenInvisible = 1u << 0,
    // A name (host, path segment, identifier) that mixes scripts to look
    // like another: `pаypal` with a Cyrillic а, or the all-Cyrillic `аррӏе`
    // of `аррӏе.com` (Unicode TR39, checked by ICU: common/mixedscript.h).
    // Latin with Han, Hiragana, Katakana, Hangul or Bopomofo, as Japanese,
    // Chinese and Korean write, is not mixed; nor are words of one script.
    HiddenMixedScript = 1u << 1,
};

// True for a code point that is never shown raw (HiddenInvisible's set).
bool isHiddenCodePoint(char32_t cp);

// `text` with every hidden code point written as ⟨U+XXXX⟩, and every
// look-alike letter of a mixed-script name as ⟨а U+0430 CYRILLIC⟩.
QString visibleText(QStringView text);
std::string visibleText(std::string_view utf8);

// `value` as JSON text (dumpJson's, `indent` as there) with the same code
// points escaped as JSON escapes, \u202E: for a field a person may edit,
// since the text parses back to exactly `value`.
std::string visibleJson(const Json &value, int indent = -1);

// HiddenText flags of `utf8`, or of every string and object key in `value`.
unsigned hiddenTextOf(std::string_view utf8);
unsigned hiddenTextOfJson(const Json &value);

// "hidden characters" with what they are, for people: empty when `flags`
// is 0, e.g. "hidden characters: invisible or control characters,
// look-alike letters of another script in a name (shown as ⟨…⟩)".
std::string hiddenTextWarning(unsigned flags);

// The names of the flags, as the protocol's `hidden_characters` array has
// them: "invisible", "mixed_script".
Json hiddenTextJson(unsigned flags);

} // namespace holdpoint
