# SPDX-License-Identifier: Apache-2.0
# Read by cpack before it packages (CPACK_PROJECT_CONFIG_FILE). Without
# dpkg-shlibdeps, CPack would make a .deb that declares none of the libraries
# it needs and only say so in passing; without file(1) it fails halfway.
if(CPACK_GENERATOR STREQUAL "DEB")
    foreach(tool dpkg-shlibdeps file)
        find_program(holdpoint_cpack_${tool} ${tool})
        if(NOT holdpoint_cpack_${tool})
            message(FATAL_ERROR "cpack: ${tool} is not installed (sudo apt-get install dpkg-dev file); "
                                "the .deb would not declare its dependencies")
        endif()
    endforeach()
endif()
