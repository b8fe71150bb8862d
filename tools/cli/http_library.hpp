#pragma once
// cpp-httplib as Debian builds it: libcpp-httplib.so is compiled with
// OpenSSL, zlib and brotli support, and those switches change the layout of
// httplib's classes (httplib::Client holds one more member, Request an SSL
// pointer). A file that includes httplib without the library's own flags
// (pkg-config --cflags cpp-httplib) disagrees with the library on sizes and
// writes past its objects, which no sanitizer sees in an uninstrumented
// library. Every file that uses httplib includes it through this header, so
// such a build fails here instead.

#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
#error "httplib must be compiled with the library's flags: add ${..._CFLAGS_OTHER} from pkg_check_modules(cpp-httplib) to this source"
#endif

#include <httplib.h>
