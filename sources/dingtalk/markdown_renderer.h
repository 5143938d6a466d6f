#pragma once
// Renders DingTalk document blocks ("块元素数据结构", vendor-apis.md §1.4) to Markdown:
// heading, paragraph, blockquote, callout, columns, orderedList, unorderedList, table, tableRow,
// tableCell, with inline text runs (bold, italic, strike, underline), links, images and
// stickers. A block of any other type becomes `<!-- unsupported block: TYPE -->`.
#include <string>
#include <string_view>

namespace cdcd::dingtalk {

/// `blocks_json` is a JSON array of top-level blocks. Throws std::invalid_argument when it is
/// not valid JSON or not an array. The result ends with a newline unless it is empty.
std::string render_markdown(std::string_view blocks_json);

}  // namespace cdcd::dingtalk
