// fmt's compiled half, built once for every unit of splitstep. Used header-only, fmt compiled
// its implementation (format-inl.h: the float and integer writers, vformat, the locale
// hooks) into each unit that formats anything, at -O3: about 4 s of a core unit's 10 s. The
// headers are LibTorch's copy of fmt, the one its own headers include, so that every unit sees
// one fmt. format.h declares the templates below as explicitly instantiated elsewhere: here.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
}  // namespace detail
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
FMT_END_NAMESPACE
