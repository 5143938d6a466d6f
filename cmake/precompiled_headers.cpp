// The one source of the targets that build the shared precompiled headers
// (cmake/PrecompiledHeaders.cmake): CMake needs a source to compile a target, the PCH is the point.
