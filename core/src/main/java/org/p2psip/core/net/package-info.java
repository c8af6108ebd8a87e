/** Network addresses shared by every module. */
package org.p2psip.core.net;
