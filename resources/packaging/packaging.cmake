# SPDX-License-Identifier: Apache-2.0
# What `cmake --install` puts under the prefix, and the Debian package CPack
# makes of it (the `package` target, or `cpack -G DEB` in the build directory).
# The unit, its sysusers.d file and /etc/holdpoint go to absolute paths (the
# HOLDPOINT_*_DIR settings below), where Debian wants them whatever the prefix.
# Included from the top-level CMakeLists.txt, so CPack sees its settings.
#
#   /usr/bin                        holdpoint, holdpoint-ctl (the front: hooks
#                                   without Qt, the rest handed to ...)
#   /usr/libexec/holdpoint          holdpoint-ctl-full (app/CMakeLists.txt)
#   /usr/share/applications         the desktop entry
#   /usr/share/metainfo             AppStream metainfo, with the screenshots
#   /usr/share/icons/hicolor        the icon, 256x256 and scalable
#   /usr/share/man/man1             holdpoint(1), holdpoint-ctl(1), made from --help
#   /usr/share/bash-completion      completions for both commands
#   /usr/share/holdpoint            example policies, the team's roles.sql, the
#                                   agent CLIs' and MCP clients' snippets
#   /lib/systemd/system             holdpoint-gateway.service
#   /usr/lib/sysusers.d             the gateway's user and the agents' group
#   /etc/holdpoint                  gateway.conf, gateway.pgpass (conffiles)

include(GNUInstallDirs)

set(pkg ${CMAKE_CURRENT_LIST_DIR})
set(HOLDPOINT_SYSTEMD_UNIT_DIR /lib/systemd/system CACHE STRING "Where the gateway's systemd unit is installed")
set(HOLDPOINT_SYSCONF_DIR /etc CACHE STRING "Where the gateway's settings are installed (absolute)")
set(HOLDPOINT_SYSUSERS_DIR /usr/lib/sysusers.d CACHE STRING "Where the gateway's sysusers.d file is installed")

# The desktop: entry, metainfo (its release is this version), icons.
configure_file(${pkg}/${HOLDPOINT_APP_ID}.metainfo.xml.in ${CMAKE_BINARY_DIR}/packaging/${HOLDPOINT_APP_ID}.metainfo.xml @ONLY)
install(FILES ${pkg}/${HOLDPOINT_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${CMAKE_BINARY_DIR}/packaging/${HOLDPOINT_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/holdpoint.png
    DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/256x256/apps RENAME ${HOLDPOINT_APP_ID}.png)
install(FILES ${PROJECT_SOURCE_DIR}/resources/web/icon.svg
    DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps RENAME ${HOLDPOINT_APP_ID}.svg)

# What a person configures from: example policies, the team's roles, and
# each integration's snippet with its README. The npm and Python packages
# are packages of their own (resources/packaging/npm-pack.sh, python-dist.sh).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/policies ${PROJECT_SOURCE_DIR}/resources/team
    DESTINATION ${CMAKE_INSTALL_DATADIR}/holdpoint)
foreach(integration claude-code codex gemini mcp)
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/integrations/${integration}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/holdpoint/integrations)
endforeach()

# The shell: completions, looked up by command name.
install(FILES ${pkg}/completion/holdpoint ${pkg}/completion/holdpoint-ctl
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# The server: the gateway's unit, its user, its settings.
install(FILES ${pkg}/holdpoint-gateway.service DESTINATION ${HOLDPOINT_SYSTEMD_UNIT_DIR})
install(FILES ${pkg}/holdpoint-gateway.sysusers DESTINATION ${HOLDPOINT_SYSUSERS_DIR} RENAME holdpoint-gateway.conf)
install(FILES ${pkg}/gateway.conf DESTINATION ${HOLDPOINT_SYSCONF_DIR}/holdpoint)
install(FILES ${pkg}/gateway.pgpass DESTINATION ${HOLDPOINT_SYSCONF_DIR}/holdpoint
    PERMISSIONS OWNER_READ OWNER_WRITE)

# Man pages from each binary's own --help (resources/packaging/manpage.py),
# so they never say what --help does not; gzip -n keeps them reproducible.
find_program(HOLDPOINT_GZIP gzip REQUIRED)
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(holdpoint_man_names
    holdpoint "approval console: a person approves, denies or edits an AI agent's tool calls before they run"
    holdpoint-ctl "submit, decide and audit an AI agent's tool calls, and hook agent CLIs and MCP servers to the Holdpoint console")
# (CMake lists: no semicolons in these texts.)
set(holdpoint_man_descriptions
    holdpoint "With a window by default. With --headless it runs without one, as a gateway on an agent host or a console decided from holdpoint-ctl. Agents find it through endpoint.json in its data directory. /usr/share/holdpoint has example policies and each agent CLI's hook snippet, and holdpoint-gateway.service runs it as a team gateway, configured in /etc/holdpoint/gateway.conf."
    holdpoint-ctl "The console's command-line client: agents and their hooks submit calls through it, and a reviewer lists, approves, denies, edits and halts them, pairs devices with the reviewer page, and reads the audit log.")
set(holdpoint_man_pages "")
while(holdpoint_man_names)
    list(POP_FRONT holdpoint_man_names program name)
    list(POP_FRONT holdpoint_man_descriptions _ description)
    if(program STREQUAL "holdpoint")
        set(see holdpoint-ctl\(1\))
    else()
        set(see holdpoint\(1\))
    endif()
    set(page ${CMAKE_BINARY_DIR}/packaging/${program}.1.gz)
    add_custom_command(OUTPUT ${page}
        COMMAND ${Python3_EXECUTABLE} ${pkg}/manpage.py $<TARGET_FILE:${program}> --name ${name}
                --description ${description} --see-also ${see} > ${CMAKE_BINARY_DIR}/packaging/${program}.1
        COMMAND ${HOLDPOINT_GZIP} -9nf ${CMAKE_BINARY_DIR}/packaging/${program}.1
        DEPENDS ${program} ${pkg}/manpage.py
        COMMENT "Man page ${program}(1) from ${program} --help"
        VERBATIM)
    list(APPEND holdpoint_man_pages ${page})
endwhile()
add_custom_target(manpages ALL DEPENDS ${holdpoint_man_pages})
install(FILES ${holdpoint_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# Debian's copyright and changelog, where lintian looks for them.
# CMake has no RFC 2822 date format; date(1) spells it out.
execute_process(COMMAND date -u -R -d "${HOLDPOINT_RELEASE_DATE} 12:00:00"
    OUTPUT_VARIABLE HOLDPOINT_RELEASE_DATE_RFC2822 OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCH "<(.*)>" _ "${HOLDPOINT_MAINTAINER}")
set(HOLDPOINT_MAINTAINER_EMAIL ${CMAKE_MATCH_1})
string(REGEX REPLACE " *<.*" "" HOLDPOINT_MAINTAINER_NAME "${HOLDPOINT_MAINTAINER}")
configure_file(${pkg}/debian/copyright.in ${CMAKE_BINARY_DIR}/packaging/copyright @ONLY)
configure_file(${pkg}/debian/changelog.in ${CMAKE_BINARY_DIR}/packaging/changelog @ONLY)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/packaging/changelog.gz
    COMMAND ${HOLDPOINT_GZIP} -9nc ${CMAKE_BINARY_DIR}/packaging/changelog > ${CMAKE_BINARY_DIR}/packaging/changelog.gz
    DEPENDS ${CMAKE_BINARY_DIR}/packaging/changelog
    VERBATIM)
add_custom_target(debian-changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/packaging/changelog.gz)
install(FILES ${CMAKE_BINARY_DIR}/packaging/copyright ${CMAKE_BINARY_DIR}/packaging/changelog.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/holdpoint)

# The warnings lintian gives that the package keeps, each with its reason.
install(FILES ${pkg}/debian/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME holdpoint)

# The .deb: holdpoint_VERSION_ARCH.deb, its dependencies from dpkg-shlibdeps
# plus Qt's platform plugins, which nothing links but the window needs.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME holdpoint)
set(CPACK_PACKAGE_VENDOR "The Holdpoint contributors")
set(CPACK_PACKAGE_CONTACT "${HOLDPOINT_MAINTAINER}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "approval console for AI agents' tool calls")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Holdpoint puts a person between an AI agent and the actions it takes.
Agents submit each tool call (write a file, run a command, post a message)
to the console before it runs. A chain of guardrails (policy rules,
protected paths, rate limits, loop detection) decides what it can; a person
approves, denies or edits the rest, from the window, holdpoint-ctl or a
paired phone. Every call and decision goes into a tamper-evident audit log.
.
This package has the console, holdpoint-ctl with the hooks for Claude Code,
Codex and Gemini CLI and the MCP proxy, and holdpoint-gateway.service for
agent hosts that share a team's queue through PostgreSQL.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${HOLDPOINT_HOMEPAGE})
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "postgresql-client")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${pkg}/debian/postinst ${pkg}/debian/prerm ${pkg}/debian/postrm ${pkg}/debian/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_OUTPUT_FILE_PREFIX ${CMAKE_BINARY_DIR}/packages)
set(CPACK_PROJECT_CONFIG_FILE ${pkg}/cpack-checks.cmake)
include(CPack)
