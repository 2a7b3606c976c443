/* resident/export.h - RS_API, the mark of every public function.
 *
 * The library is built with hidden visibility: only what its headers declare with RS_API
 * is exported from libresident.so (tests/check_exports.py fails the build's tests on
 * anything else), so internal symbols can change without breaking programs linked
 * against an earlier release.
 *
 * A program linking the static library (libresident.a) on Windows defines RS_STATIC
 * before including resident.h; elsewhere nothing needs defining.
 */
#ifndef RESIDENT_EXPORT_H
#define RESIDENT_EXPORT_H

#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(RS_STATIC)
#define RS_API
#elif defined(RS_BUILDING_LIBRARY)
#define RS_API __declspec(dllexport)
#else
#define RS_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define RS_API __attribute__((visibility("default")))
#else
#define RS_API
#endif

#endif
