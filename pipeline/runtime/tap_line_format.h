#pragma once
// One event as a line of `cdcd tap`: a JSON object and '\n'.
//
//   {"point":"transform","table":"db.orders","op":"update","before":{…},"after":{…}}
//   {"point":"sink","writer":1,"table":"db.orders","op":"insert","after":{…}}
//   {"point":"source","table":"db.orders","op":"schema-change","change":"AddColumnEvent{…}"}
//
// Field values are written as the JSON formats write them (formats/json/row_json.h); the value of
// every column `sensitive` marks is the string "***". Event metadata is not shown.
#include <string>

#include "pipeline/event/events.h"
#include "pipeline/runtime/sensitive_columns.h"
#include "pipeline/runtime/tap_request.h"

namespace cdcd {

/// `schema`: the table's schema at that point (every row of `event` must have its arity);
/// `writer`: the sink writer's index at TapPoint::Sink, else -1.
std::string format_tap_line(TapPoint point, const Event& event, const Schema* schema,
                            const SensitiveColumns& sensitive, int writer = -1);

}  // namespace cdcd
