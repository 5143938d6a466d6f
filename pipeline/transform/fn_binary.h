#pragma once
// The BINARY/VARBINARY overloads of string functions (Flink CDC's StringFunctions byte[]
// methods): fn_string.cpp's builders hand a call over when its operands are bytes.
#include "pipeline/transform/functions.h"

namespace cdcd::transform {

/// True when argument 0 or 1 is BINARY/VARBINARY: the call takes the byte[] overload.
bool has_binary_operand(const CallSite& c);
/// OVERLAY(bytes PLACING bytes FROM n [FOR len]): positions count bytes.
NodePtr build_binary_overlay(CallSite& c);
/// POSITION(bytes IN bytes [FROM n]): the 1-based byte position, 0 when absent.
NodePtr build_binary_position(CallSite& c);

}  // namespace cdcd::transform
