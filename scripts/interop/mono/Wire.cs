// What went over the wire for the last call of any proxy: each generated proxy class is partial,
// so this file adds to it an override that records the request and response headers.
// The namespaces are the ones scripts/interop-mono.sh gives `wsdl -namespace:`: one per endpoint,
// as "Add Web Reference" does, since the endpoints share types.

using System.Net;

public static class Wire
{
    public static string RequestContentType, SoapAction, ResponseContentType;
    public static int Status;

    public static void Clear()
    {
        RequestContentType = SoapAction = ResponseContentType = null;
        Status = 0;
    }

    public static WebResponse Record(WebRequest request, WebResponse response)
    {
        RequestContentType = request.ContentType;
        SoapAction = request.Headers["SOAPAction"];
        var http = response as HttpWebResponse;
        ResponseContentType = response.ContentType;
        Status = http != null ? (int)http.StatusCode : 0;
        return response;
    }

    /// <summary>Records a response that came as a WebException (an HTTP error status), then lets it go on.</summary>
    public static void Record(WebRequest request, WebException e)
    {
        if (e.Response != null) Record(request, e.Response);
        else RequestContentType = request.ContentType;
    }
}

namespace Served.Soap11.WeaponsRef { public partial class Weapons { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Served.Soap11.ItemRef { public partial class Item { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Served.Soap11.HuntingRef { public partial class Hunting { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Served.Soap11.AuctionRef { public partial class Auction { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Served.Soap12.WeaponsRef { public partial class Weapons { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Served.Soap12.ItemRef { public partial class Item { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Served.Soap12.HuntingRef { public partial class Hunting { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Served.Soap12.AuctionRef { public partial class Auction { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Legacy.Soap11.WeaponsRef { public partial class Weapons { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Legacy.Soap11.ItemRef { public partial class Item { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Legacy.Soap11.HuntingRef { public partial class Hunting { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Legacy.Soap11.AuctionRef { public partial class Auction { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Legacy.Soap12.WeaponsRef { public partial class Weapons { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Legacy.Soap12.ItemRef { public partial class Item { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Legacy.Soap12.HuntingRef { public partial class Hunting { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
namespace Legacy.Soap12.AuctionRef { public partial class Auction { protected override WebResponse GetWebResponse(WebRequest r) { try { return Wire.Record(r, base.GetWebResponse(r)); } catch (WebException e) { Wire.Record(r, e); throw; } } } }
