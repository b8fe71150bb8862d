# Helpers that keep one library per layer while letting each concept live in
# its own folder. A runtime module is runtime/<name>/*.cpp; an actor module is
# actors/<name>/*.cpp. Each is a static library so a change in one concept
# rebuilds and relinks only what depends on it.

# ad_runtime_module(NAME [DEPENDS other_module...] [LIBS extra...])
function(ad_runtime_module name)
  cmake_parse_arguments(arg "" "" "DEPENDS;LIBS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS
       "${PROJECT_SOURCE_DIR}/runtime/${name}/*.cpp")
  set(deps)
  foreach(dep IN LISTS arg_DEPENDS)
    list(APPEND deps ad_runtime_${dep})
  endforeach()
  if(NOT sources)
    # A module whose folder holds only headers so far.
    add_library(ad_runtime_${name} INTERFACE)
    target_link_libraries(ad_runtime_${name}
      INTERFACE ad_settings nlohmann_json::nlohmann_json spdlog::spdlog ${deps} ${arg_LIBS})
    set_property(GLOBAL APPEND PROPERTY AD_RUNTIME_MODULES ad_runtime_${name})
    return()
  endif()
  add_library(ad_runtime_${name} STATIC ${sources})
  target_link_libraries(ad_runtime_${name}
    PUBLIC ad_settings nlohmann_json::nlohmann_json spdlog::spdlog ${deps} ${arg_LIBS})
  set_property(GLOBAL APPEND PROPERTY AD_RUNTIME_MODULES ad_runtime_${name})
endfunction()

# ad_actor_module(NAME [DEPENDS other_actor_module...] [RUNTIME runtime_module...])
function(ad_actor_module name)
  cmake_parse_arguments(arg "" "" "DEPENDS;RUNTIME;LIBS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS
       "${PROJECT_SOURCE_DIR}/actors/${name}/*.cpp")
  set(deps)
  foreach(dep IN LISTS arg_DEPENDS)
    list(APPEND deps ad_actors_${dep})
  endforeach()
  foreach(dep IN LISTS arg_RUNTIME)
    list(APPEND deps ad_runtime_${dep})
  endforeach()
  if(NOT sources)
    add_library(ad_actors_${name} INTERFACE)
    target_link_libraries(ad_actors_${name} INTERFACE ad_messages ${deps} ${arg_LIBS})
    set_property(GLOBAL APPEND PROPERTY AD_ACTOR_MODULES ad_actors_${name})
    return()
  endif()
  add_library(ad_actors_${name} STATIC ${sources})
  target_link_libraries(ad_actors_${name} PUBLIC ad_messages ${deps} ${arg_LIBS})
  target_precompile_headers(ad_actors_${name} REUSE_FROM ad_messages)
  # One unit a file even in a unity build: each actor file names its own
  # self pointer and state types at file scope, and the modules are small.
  set_target_properties(ad_actors_${name} PROPERTIES UNITY_BUILD OFF)
  set_property(GLOBAL APPEND PROPERTY AD_ACTOR_MODULES ad_actors_${name})
endfunction()

# ad_test(NAME SOURCES_DIR LIBS... [LABELS ...] [PCH]) builds one GoogleTest
# binary from every *.cpp in tests/<SOURCES_DIR> and registers its cases with
# ctest. PCH: the sources use CAF's precompiled headers (ad_messages').
# In the sanitized build the test sources themselves are compiled at -O0
# (AD_O0; the code under test keeps -O1): it halves their compile time.
# PCH targets keep -O1, which their precompiled header was built with.
function(ad_test name dir)
  cmake_parse_arguments(arg "PCH" "TIMEOUT" "LIBS;LABELS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/${dir}/*.cpp")
  add_executable(${name} ${sources})
  target_link_libraries(${name} PRIVATE ad_test_support ${arg_LIBS} GTest::gtest_main GTest::gmock)
  if(arg_PCH)
    target_precompile_headers(${name} REUSE_FROM ad_messages)
  elseif(AD_SANITIZE)
    set_target_properties(${name} PROPERTIES AD_O0 ON)
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  gtest_discover_tests(${name}
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    PROPERTIES LABELS "${arg_LABELS}" TIMEOUT ${arg_TIMEOUT}
    DISCOVERY_TIMEOUT 60)
endfunction()
